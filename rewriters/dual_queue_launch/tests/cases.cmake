# dual-queue-launch (rewriters/dual_queue_launch, docs/rewrites-templates.md):
# the load-balancing launch templates' cases (rewriters/lb_common/tests/family.cmake)
# and dual-queue-launch's own; goldens in tests/golden/. Registered by
# tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/lb_common/tests/family.cmake)
nestor_lb_launch_template_cases(dual-queue-launch)
# (No nestor_lb_launch_refusal_cases(dual-queue-launch REMOVES_DEVICE_LAUNCH)
# yet: the other three launch templates have those refusal cases.)

# The promotion says in its code action title that -rdc is no longer needed.
nestor_lb_launch_title_listed(dual-queue-launch "Remove the device launch (no -rdc/cudadevrt needed): dual-queue")
# A tail launch is refused (rewriters/dp_common/tests/family.cmake).
nestor_dp_tail_launch_refusal(dual-queue-launch)
