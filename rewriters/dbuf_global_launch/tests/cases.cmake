# dbuf-global-launch (rewriters/dbuf_global_launch, docs/rewrites-templates.md):
# the load-balancing launch templates' cases (rewriters/lb_common/tests/family.cmake)
# and dbuf-global-launch's own; goldens in tests/golden/. Registered by
# tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/lb_common/tests/family.cmake)
nestor_lb_launch_template_cases(dbuf-global-launch)
nestor_lb_launch_refusal_cases(dbuf-global-launch REMOVES_DEVICE_LAUNCH)
nestor_lb_useful_threads_cases(dbuf-global-launch)

# Applied twice: the first leaves no device launch for the second.
nestor_lb_graph_launch_refusal(dbuf_global_launch_twice APPLY dbuf-global-launch,dbuf-global-launch
  EXPECT "no kernel launch at")
# The promotion says in its code action title that -rdc is no longer needed.
nestor_lb_launch_title_listed(dbuf-global-launch "Remove the device launch (no -rdc/cudadevrt needed): dbuf-global")
