# dpar-opt (rewriters/dpar_opt, docs/rewrites-templates.md): the
# load-balancing loop templates' cases (rewriters/lb_common/tests/family.cmake)
# and dpar-opt's own; goldens in tests/golden/. Registered by
# tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/lb_common/tests/family.cmake)
# dpar-opt also builds without -rdc (the planner builds variants with the
# project's own command): the device launch is compiled out and each block
# processes its buffer itself.
nestor_lb_loop_template_cases(dpar-opt NVCC_NORDC)

# The family's for-each checks (one template each): a body that reads threadIdx.
nestor_rewrite_refusal(templates.foreach_thread_ids INPUT rewriters/lb_common/tests/foreach_refusals.cu
  AT "^thread_ids" APPLY dpar-opt EXPECT "reads threadIdx")
