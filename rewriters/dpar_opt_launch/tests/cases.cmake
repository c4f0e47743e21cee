# dpar-opt-launch (rewriters/dpar_opt_launch, docs/rewrites-templates.md): the
# load-balancing launch templates' cases (rewriters/lb_common/tests/family.cmake)
# and dpar-opt-launch's own; goldens in tests/golden/. Registered by
# tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/lb_common/tests/family.cmake)
nestor_lb_launch_template_cases(dpar-opt-launch)
nestor_lb_launch_refusal_cases(dpar-opt-launch HOLDS_IN_BLOCK)

# dpar-opt keeps dynamic parallelism: the device runtime elsewhere in the
# parent and dynamic shared memory (extern __shared__ in the moved body) are
# fine (the promotions refuse both).
set(launch_fx rewriters/lb_common/tests/launch_refusals.cu)
nestor_rewrite_case(templates/launch_refusals.dpar_opt_launch_device_runtime INPUT ${launch_fx} AT "^device_runtime"
  APPLY dpar-opt-launch PARAMS lb_threshold=64)
nestor_rewrite_case(templates/launch_refusals.dpar_opt_launch_dynamic_shared INPUT ${launch_fx} AT "^dynamic_shared"
  APPLY dpar-opt-launch PARAMS lb_threshold=64)

# It keeps its device launch and says in its title what it does instead.
nestor_lb_launch_title_listed(dpar-opt-launch "One device launch per block (dpar-opt)")
# A tail launch is refused (rewriters/dp_common/tests/family.cmake).
nestor_dp_tail_launch_refusal(dpar-opt-launch)
