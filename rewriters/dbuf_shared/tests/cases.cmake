# dbuf-shared (rewriters/dbuf_shared, docs/rewrites-templates.md): the
# load-balancing loop templates' cases (rewriters/lb_common/tests/family.cmake)
# and dbuf-shared's own; goldens in tests/golden/. Registered by
# tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/lb_common/tests/family.cmake)
nestor_lb_loop_template_cases(dbuf-shared)

# The kernel that dual-queue and dbuf-global refuse for its named stream is
# fine for dbuf-shared (one kernel, launches unchanged).
nestor_rewrite_case(templates/refusals.dbuf_shared_on_stream INPUT rewriters/lb_common/tests/refusals.cu
  AT "^named_stream" APPLY dbuf-shared PARAMS lb_threshold=64)
# A loop with a uniform trip count is not irregular.
nestor_rewrite_refusal(templates.dbuf_shared_uniform_trip INPUT tests/fixtures/loops/tmv.cu AT "for (int i = 0"
  APPLY dbuf-shared EXPECT "not irregular")

# The family's for-each checks (one template each): a body that leaves the
# loop; the owner's replay offered when nothing outside the loop has an effect
# (bfs's shape) or the loop stores elsewhere (refused when neither:
# templates.foreach_replay_diverges_*, family.cmake). (The suffixes 64 and 74
# are names.)
set(foreach_fx rewriters/lb_common/tests/foreach_refusals.cu)
nestor_rewrite_refusal(templates.foreach_break INPUT ${foreach_fx} AT "^break" APPLY dbuf-shared
  EXPECT "leaves through break, continue, return or goto")
foreach(entry "64|replay_unobservable" "74|replay_other_memory")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 suffix)
  list(GET parts 1 marker)
  nestor_rewrite_listed(templates.foreach_replay_safe_${suffix} INPUT ${foreach_fx} AT "^${marker}" FLAGS --verbose
    EXPECT "dbuf-shared [Delayed buffer in shared memory (dbuf-shared), lb_threshold 64]: applies")
endforeach()
