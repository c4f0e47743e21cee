# coarsen (rewriters/coarsen, docs/rewrites-dp.md): the dynamic-parallelism
# family's cases (rewriters/dp_common/tests/family.cmake) and coarsen's own;
# goldens in tests/golden/. Registered by tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/dp_common/tests/family.cmake)
nestor_dp_rewrite_cases(coarsen)

# On the GPU also with a factor that leaves partial coarse blocks.
nestor_dp_graph_cases(coarsen APPLY coarsen GPU_ALSO "factor3|NESTOR_CFACTOR=3")

# ---- the family's inputs (rewriters/dp_common/tests, cursor markers) --------
set(dp_fx rewriters/dp_common/tests)
# 3-D child grid and block, `return` in the child, a parameter it modifies;
# strategies 2 and 3.
nestor_dp_case(dp/multidim.coarsen INPUT ${dp_fx}/multidim.cu AT "^" APPLY coarsen PARAMS factor=2)
nestor_dp_case(dp/multidim.coarsen_s2 INPUT ${dp_fx}/multidim.cu AT "^" APPLY coarsen PARAMS strategy=2)
nestor_dp_case(dp/multidim.coarsen_s3 INPUT ${dp_fx}/multidim.cu AT "^" APPLY coarsen PARAMS strategy=3)
# __shared__ and __syncthreads in the child.
nestor_dp_case(dp/shared_barrier.coarsen INPUT ${dp_fx}/shared_barrier.cu AT "^" APPLY coarsen)
# The order threshold -> coarsen matters.
nestor_rewrite_refusal(dp_threshold_after_coarsen INPUT examples/graph/bfs.cu AT "bfs_child<<<" APPLY coarsen,threshold
                       EXPECT "apply threshold before coarsen")

# Launch arguments of class type, copied (family.cmake).
nestor_dp_argument_copy_cases(coarsen)
# A child whose helper has code clang could not parse: coarsening renames the
# child's blockIdx, which that code may read (rewriters/dp_common/tests/unparsed_child.cu).
nestor_rewrite_refusal(dp_unparsed_helper_coarsen INPUT rewriters/dp_common/tests/unparsed_child.cu AT "^dropped"
                       APPLY coarsen PARAMS factor=2 EXPECT "'scale_span' has code clang could not parse (line 38)")
