# dbuf-shared-launch (rewriters/dbuf_shared_launch, docs/rewrites-templates.md):
# the load-balancing launch templates' cases (rewriters/lb_common/tests/family.cmake)
# and dbuf-shared-launch's own; goldens in tests/golden/, with those of the
# chains that start with dbuf-shared-launch. Registered by
# tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/lb_common/tests/family.cmake)
nestor_lb_launch_template_cases(dbuf-shared-launch)
nestor_lb_launch_refusal_cases(dbuf-shared-launch HOLDS_IN_BLOCK REMOVES_DEVICE_LAUNCH)
nestor_lb_useful_threads_cases(dbuf-shared-launch)

# The buffer adds static shared memory to every parent block: a parent launch
# that asks for dynamic shared memory on top is refused.
nestor_rewrite_refusal(templates.dbuf_shared_launch_dynamic_shared INPUT rewriters/lb_common/tests/launch_refusals.cu
  AT "^dynamic_shared" APPLY dbuf-shared-launch
  EXPECT "line 58 asks for dynamic shared memory (128 * sizeof(unsigned))")
# Followed by dpar-opt-launch: no device launch is left for it.
nestor_lb_graph_launch_refusal(dbuf_shared_launch_twice APPLY dbuf-shared-launch,dpar-opt-launch
  EXPECT "no kernel launch at")
# The promotion says in its code action title that -rdc is no longer needed.
nestor_lb_launch_title_listed(dbuf-shared-launch "Remove the device launch (no -rdc/cudadevrt needed): dbuf-shared")
