# aggregate (rewriters/aggregate, docs/rewrites-dp.md): the dynamic-parallelism
# family's cases (rewriters/dp_common/tests/family.cmake) and aggregate's own;
# goldens in tests/golden/. Registered by tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/dp_common/tests/family.cmake)
nestor_dp_rewrite_cases(aggregate)

# ---- the graph programs: each granularity -----------------------------------
# On the GPU also with a 64-record pool that overflows: the refused launches
# take the original path.
set(pool_overflow GPU_ALSO "pool_overflow|NESTOR_AGG_POOL_CAPACITY=64u")
nestor_dp_graph_cases(aggregate_warp APPLY aggregate ${pool_overflow})
nestor_dp_graph_cases(aggregate_block APPLY aggregate PARAMS granularity=block ${pool_overflow})
nestor_dp_graph_cases(aggregate_grid APPLY aggregate PARAMS granularity=grid ${pool_overflow})

# ---- the family's inputs (rewriters/dp_common/tests, cursor markers) --------
set(dp_fx rewriters/dp_common/tests)
# 3-D child grid and block, `return` in the child, a parameter it modifies.
nestor_dp_case(dp/multidim.aggregate_block INPUT ${dp_fx}/multidim.cu AT "^" APPLY aggregate PARAMS granularity=block)
# Side effects in the configuration and arguments; the launch is in a loop.
nestor_dp_case(dp/side_effects.aggregate_warp INPUT ${dp_fx}/side_effects.cu AT "^" APPLY aggregate)
nestor_dp_case(dp/side_effects.aggregate_grid INPUT ${dp_fx}/side_effects.cu AT "^" APPLY aggregate
               PARAMS granularity=grid)
nestor_rewrite_refusal(dp_side_effects_aggregate_block_in_loop INPUT ${dp_fx}/side_effects.cu AT "^" APPLY aggregate
                       PARAMS granularity=block EXPECT "in a loop")
# __shared__ and __syncthreads in the child, with a constant block: every
# aggregated block is one whole original block, so the barrier is reached by
# all its threads.
nestor_dp_case(dp/shared_barrier.aggregate_block INPUT ${dp_fx}/shared_barrier.cu AT "^" APPLY aggregate
               PARAMS granularity=block)
nestor_dp_case(dp/shared_barrier.aggregate_grid INPUT ${dp_fx}/shared_barrier.cu AT "^" APPLY aggregate
               PARAMS granularity=grid)
nestor_rewrite_refusal(dp_shared_barrier_dynamic_block_aggregate INPUT ${dp_fx}/shared_barrier_dynamic_block.cu
                       AT "^" APPLY aggregate EXPECT "is not a compile-time constant")

# A runnable program whose child has __shared__ memory and barriers, aggregated
# with a constant block (tests/gpu runs original against these goldens).
# A child with __shared__ memory and barriers (constant block), at each
# granularity; on the GPU against the original (tests/gpu), also with a pool
# that overflows and falls back to the original launches.
foreach(g warp block grid)
  nestor_dp_case(dp/row_tile_sum.aggregate_${g} INPUT tests/fixtures/dp/row_tile_sum.cu AT "tile_sum<<<"
    APPLY aggregate PARAMS granularity=${g} ${pool_overflow})
endforeach()

# Launch arguments of class type (family.cmake): refused, naming the parameter
# and the constructor's place in the header; --list names the header's line
# with its file, once.
nestor_dp_argument_record_refusals(aggregate)
set(lonestar_fx tests/fixtures/dp/graph_by_value.cu)
nestor_rewrite_listed(dp.graph_by_value_aggregate_refusal INPUT ${lonestar_fx} AT "relax_edges<<<"
  EXPECT "is a __host__ function (lonestar_graph.h:10): the record of a launch's arguments would default-construct it in device code")
# The ranking holds only what the engine offers (issues #21, #22): at a launch
# where aggregate is refused, --list gives it one line with its reason.
nestor_rewrite_listed(dp.graph_by_value_mapping_not_made INPUT ${lonestar_fx} AT "relax_edges<<<"
  EXPECT "aggregate: not offered: the parameter 'g' of relax_edges is a Graph and the default constructor of 'Graph' is a __host__ function (lonestar_graph.h:10)")
# A child's index read in a helper from a project header: in the aggregated
# grid the helper would read the aggregated grid's blockIdx.
nestor_rewrite_refusal(dp_header_index_aggregate INPUT ${dp_fx}/header_index_child.cu AT "scale_neighbours<<<" APPLY aggregate
  PARAMS granularity=grid EXPECT "child kernel scale_neighbours calls child_thread(), which reads blockIdx")
# A child with code clang could not parse: which block or thread it reads is
# unknown, so it is not moved into an aggregated grid
# (rewriters/dp_common/tests/unparsed_child.cu; coarsen's test covers a helper).
nestor_rewrite_refusal(dp_unparsed_child_aggregate INPUT ${dp_fx}/unparsed_child.cu AT "^" APPLY aggregate
                       PARAMS granularity=grid EXPECT "'group_scale' has code clang could not parse (line 10)")
