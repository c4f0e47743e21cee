# The dynamic-parallelism rewrites (threshold, coarsen, aggregate;
# rewriters/{threshold,coarsen,aggregate}, docs/rewrites-dp.md): their cases,
# written once for the family (each golden lives with the first rewrite it
# applies: rewriters/<rewrite>/tests/golden/). Registered by
# tests/rewrite/CMakeLists.txt.
#
# The graph goldens are named golden/graph/<program>.<variant>.cu: tests/gpu
# checks each against examples/graph/<program>.cu on the GPU, and
# bench/graph/run.sh --variants rewriters/*/tests/golden/graph times them.
function(dp_case name)
  # The graph goldens include "graph.h" from examples/graph.
  nestor_rewrite_case(${name} ${ARGN} NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/graph)
endfunction()

# ---- the graph programs: each rewrite alone and the full chain -------------
# <program>|<its device launch>
set(dp_graph_sites "neighbour_sum|ns_child<<<" "bfs|bfs_child<<<" "sssp|sssp_child<<<")
foreach(entry ${dp_graph_sites})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 program)
  list(GET parts 1 launch)
  set(site INPUT examples/graph/${program}.cu AT "${launch}")
  dp_case(graph/${program}.threshold ${site} APPLY threshold)
  dp_case(graph/${program}.coarsen ${site} APPLY coarsen)
  dp_case(graph/${program}.aggregate_warp ${site} APPLY aggregate)
  dp_case(graph/${program}.aggregate_block ${site} APPLY aggregate PARAMS granularity=block)
  dp_case(graph/${program}.aggregate_grid ${site} APPLY aggregate PARAMS granularity=grid)
  dp_case(graph/${program}.threshold_coarsen_aggregate ${site} APPLY threshold,coarsen,aggregate PARAMS granularity=grid)
  # Applying a rewrite twice is refused.
  foreach(r threshold coarsen aggregate)
    nestor_rewrite_refusal(dp_${program}_${r}_twice ${site} APPLY ${r},${r} EXPECT "already applied")
  endforeach()
endforeach()

# ---- inputs only these cases read (here, with cursor markers) ---------------
# 3-D child grid and block, `return` in the child, a parameter it modifies.
dp_case(dp/multidim.threshold INPUT multidim.cu AT "^" APPLY threshold PARAMS threshold=512)
dp_case(dp/multidim.coarsen INPUT multidim.cu AT "^" APPLY coarsen PARAMS factor=2)
dp_case(dp/multidim.coarsen_s2 INPUT multidim.cu AT "^" APPLY coarsen PARAMS strategy=2)
dp_case(dp/multidim.coarsen_s3 INPUT multidim.cu AT "^" APPLY coarsen PARAMS strategy=3)
dp_case(dp/multidim.aggregate_block INPUT multidim.cu AT "^" APPLY aggregate PARAMS granularity=block)
dp_case(dp/multidim.threshold_coarsen_aggregate INPUT multidim.cu AT "^"
                    APPLY threshold,coarsen,aggregate PARAMS granularity=warp)
# Side effects in the configuration and arguments; the launch is in a loop.
dp_case(dp/side_effects.threshold INPUT side_effects.cu AT "^" APPLY threshold)
dp_case(dp/side_effects.aggregate_warp INPUT side_effects.cu AT "^" APPLY aggregate)
dp_case(dp/side_effects.aggregate_grid INPUT side_effects.cu AT "^" APPLY aggregate PARAMS granularity=grid)
nestor_rewrite_refusal(dp_side_effects_aggregate_block_in_loop INPUT side_effects.cu AT "^" APPLY aggregate
                       PARAMS granularity=block EXPECT "in a loop")
# __shared__ and __syncthreads in the child.
dp_case(dp/shared_barrier.coarsen INPUT shared_barrier.cu AT "^" APPLY coarsen)
nestor_rewrite_refusal(dp_shared_barrier_threshold INPUT shared_barrier.cu AT "^" APPLY threshold
                       EXPECT "not serialisable: 'tile_sum' uses __syncthreads")
# A constant block: every aggregated block is one whole original block, so the
# barrier is reached by all its threads.
dp_case(dp/shared_barrier.aggregate_block INPUT shared_barrier.cu AT "^" APPLY aggregate PARAMS granularity=block)
dp_case(dp/shared_barrier.aggregate_grid INPUT shared_barrier.cu AT "^" APPLY aggregate PARAMS granularity=grid)
nestor_rewrite_refusal(dp_shared_barrier_dynamic_block_aggregate INPUT shared_barrier_dynamic_block.cu AT "^"
                       APPLY aggregate EXPECT "is not a compile-time constant")
# Device-side cudaDeviceSynchronize (gone in CDP2): refused by all three.
foreach(r threshold coarsen aggregate)
  nestor_rewrite_refusal(dp_device_sync_${r} INPUT device_sync.cu AT "^" APPLY ${r}
                         EXPECT "device-side cudaDeviceSynchronize")
endforeach()
# Host launches are not DP launches; the order threshold -> coarsen matters.
nestor_rewrite_refusal(dp_host_launch_threshold INPUT examples/graph/bfs.cu AT "bfs_parent<<<" APPLY threshold
                       EXPECT "host-side launch")
nestor_rewrite_refusal(dp_threshold_after_coarsen INPUT examples/graph/bfs.cu AT "bfs_child<<<" APPLY coarsen,threshold
                       EXPECT "apply threshold before coarsen")

# A runnable program whose child has __shared__ memory and barriers, aggregated
# with a constant block (tests/gpu runs original against these goldens).
foreach(g warp block grid)
  dp_case(dp/row_tile_sum.aggregate_${g} INPUT tests/fixtures/dp/row_tile_sum.cu AT "tile_sum<<<" APPLY aggregate
    PARAMS granularity=${g})
endforeach()

# Launch arguments of class type (issue #21): LonestarGPU's Graph, passed by
# value, has a __host__ default constructor, the Worklist none. threshold and
# coarsen copy the arguments and compile; aggregate and the launch templates
# would default-construct a record of them in device code: refused, naming the
# parameter and the constructor's place in the header. (The goldens' suffixes
# _21 and _35 are names: the launches of relax_edges and push_neighbours.)
set(lonestar_fx tests/fixtures/dp/graph_by_value.cu)
set(lonestar_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/dp)
foreach(entry "21|relax_edges<<<" "35|push_neighbours<<<")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 suffix)
  list(GET parts 1 launch)
  nestor_rewrite_case(dp/graph_by_value.threshold_${suffix} INPUT ${lonestar_fx} AT "${launch}" APPLY threshold
    ${lonestar_inc})
  nestor_rewrite_case(dp/graph_by_value.coarsen_${suffix} INPUT ${lonestar_fx} AT "${launch}" APPLY coarsen
    ${lonestar_inc})
endforeach()
foreach(rw aggregate dbuf-global-launch dual-queue-launch dbuf-shared-launch dpar-opt-launch)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_refusal(dp_graph_by_value_${rw_name}_host_ctor INPUT ${lonestar_fx} AT "relax_edges<<<" APPLY ${rw}
    EXPECT "the parameter 'g' of relax_edges is a Graph and the default constructor of 'Graph' is a __host__ function (lonestar_graph.h:10)")
  nestor_rewrite_refusal(dp_graph_by_value_${rw_name}_no_ctor INPUT ${lonestar_fx} AT "push_neighbours<<<" APPLY ${rw}
    EXPECT "the parameter 'wl' of push_neighbours is a Worklist and 'Worklist' has no default constructor")
endforeach()
# --list names the header's line with its file, once.
nestor_rewrite_listed(dp.graph_by_value_aggregate_refusal INPUT ${lonestar_fx} AT "relax_edges<<<"
  EXPECT "is a __host__ function (lonestar_graph.h:10): the record of a launch's arguments would default-construct it in device code")
# The ranking holds only what the engine offers (issues #21, #22): at a launch
# where aggregate (or every DP rewrite) is refused, --list gives the refused
# family one line with its reason; with nothing offered, the advice is to keep
# the original.
nestor_rewrite_listed(dp.graph_by_value_mapping_not_made INPUT ${lonestar_fx} AT "relax_edges<<<"
  EXPECT "aggregate: not offered: the parameter 'g' of relax_edges is a Graph and the default constructor of 'Graph' is a __host__ function (lonestar_graph.h:10)")
nestor_rewrite_listed(dp.device_sync_mapping_not_made INPUT device_sync.cu AT "^"
  EXPECT "threshold: not offered: device-side cudaDeviceSynchronize()")

# Every offer applies (issue #21): a launch directly after the #include lines,
# where the runtime include and the code a rewrite puts before the child share
# one offset (tests/fixtures/edits, which rewrite_all_offers also reads). Each
# rewrite offered there is applied and its golden compiled.
foreach(rw threshold coarsen aggregate dbuf-global-launch dual-queue-launch dbuf-shared-launch dpar-opt-launch)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_case(edits/launch_after_includes.${rw_name} INPUT tests/fixtures/edits/launch_after_includes.cu
    AT "add_one<<<" APPLY ${rw})
endforeach()
