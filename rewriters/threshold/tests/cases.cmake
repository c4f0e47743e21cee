# threshold (rewriters/threshold, docs/rewrites-dp.md): the dynamic-parallelism
# family's cases (rewriters/dp_common/tests/family.cmake) and threshold's own;
# goldens in tests/golden/, with those of the chains that start with threshold.
# Registered by tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/dp_common/tests/family.cmake)
nestor_dp_rewrite_cases(threshold)

# ---- the graph programs: threshold alone and the full chain ----------------
# On the GPU also with every launch serialised, and with every launch made.
nestor_dp_graph_cases(threshold APPLY threshold
  GPU_ALSO "all_serial|NESTOR_THRESHOLD=1000000000" "all_launched|NESTOR_THRESHOLD=1")
nestor_dp_graph_cases(threshold_coarsen_aggregate APPLY threshold,coarsen,aggregate PARAMS granularity=grid)

# ---- the family's inputs (rewriters/dp_common/tests, cursor markers) --------
set(dp_fx rewriters/dp_common/tests)
# 3-D child grid and block, `return` in the child, a parameter it modifies.
nestor_dp_case(dp/multidim.threshold INPUT ${dp_fx}/multidim.cu AT "^" APPLY threshold PARAMS threshold=512)
nestor_dp_case(dp/multidim.threshold_coarsen_aggregate INPUT ${dp_fx}/multidim.cu AT "^"
               APPLY threshold,coarsen,aggregate PARAMS granularity=warp)
# Side effects in the configuration and arguments; the launch is in a loop.
nestor_dp_case(dp/side_effects.threshold INPUT ${dp_fx}/side_effects.cu AT "^" APPLY threshold)
# __shared__ and __syncthreads in the child.
nestor_rewrite_refusal(dp_shared_barrier_threshold INPUT ${dp_fx}/shared_barrier.cu AT "^" APPLY threshold
                       EXPECT "not serialisable: 'tile_sum' uses __syncthreads")
# A child with code clang could not parse (an undeclared cooperative-groups
# namespace): whether it synchronises is unknown.
nestor_rewrite_refusal(dp_unparsed_child_threshold INPUT ${dp_fx}/unparsed_child.cu AT "^" APPLY threshold
                       EXPECT "not serialisable: 'group_scale' has code clang could not parse, so whether it synchronises is unknown (line 10)")
# The same for a statement clang dropped without a node, in a helper the child calls.
nestor_rewrite_refusal(dp_unparsed_helper_threshold INPUT ${dp_fx}/unparsed_child.cu AT "^dropped" APPLY threshold
                       EXPECT "not serialisable: 'scale_span' has code clang could not parse, so whether it synchronises is unknown (line 38)")
# Host launches are not DP launches.
nestor_rewrite_refusal(dp_host_launch_threshold INPUT examples/graph/bfs.cu AT "bfs_parent<<<" APPLY threshold
                       EXPECT "host-side launch")

# Launch arguments of class type, copied (family.cmake).
nestor_dp_argument_copy_cases(threshold)

# The ranking holds only what the engine offers (issues #21, #22): where every
# DP rewrite is refused, --list gives each refused rewrite one line with its
# reason; with nothing offered, the advice is to keep the original.
nestor_rewrite_listed(dp.device_sync_mapping_not_made INPUT ${dp_fx}/device_sync.cu AT "^"
  EXPECT "threshold: not offered: device-side cudaDeviceSynchronize()")
# A child template launched with the parent template's argument: the model
# resolves the child (cuda::launchedKernel), the rewrites refuse templates.
nestor_rewrite_listed(dp.template_child INPUT ${dp_fx}/template_child.cu AT "^"
  EXPECT "threshold: not offered: child kernel count_hits is a template (not supported)")
# A child's index read in a helper from a project header: the clone run in
# the parent thread would read the parent's built-ins there.
nestor_rewrite_refusal(dp_header_index_threshold INPUT ${dp_fx}/header_index_child.cu AT "scale_neighbours<<<" APPLY threshold
                       EXPECT "child kernel scale_neighbours calls child_thread(), which reads blockIdx (a clone cannot replace it there)")
