# Golden and refusal cases of the dynamic-parallelism rewrites (threshold,
# coarsen, aggregate; rewriters/{threshold,coarsen,aggregate}, docs/rewrites-dp.md).
#
# The graph goldens are named golden/graph/<program>.<variant>.cu: tests/gpu
# checks each against examples/graph/<program>.cu on the GPU, and
# bench/graph/run.sh --variants tests/rewrite/golden/graph times them.

function(dp_case name)
  # The graph goldens include "graph.h" from examples/graph.
  nestor_rewrite_case(${name} ${ARGN} NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/graph)
endfunction()
function(dp_refusal name)
  nestor_rewrite_refusal(${name} ${ARGN})
endfunction()

# ---- the graph programs: each rewrite alone and the full chain -------------
set(dp_graph_sites "neighbour_sum:42" "bfs:50" "sssp:66")
foreach(entry ${dp_graph_sites})
  string(REPLACE ":" ";" parts ${entry})
  list(GET parts 0 program)
  list(GET parts 1 line)
  set(input examples/graph/${program}.cu)
  dp_case(graph/${program}.threshold INPUT ${input} AT ${line} APPLY threshold)
  dp_case(graph/${program}.coarsen INPUT ${input} AT ${line} APPLY coarsen)
  dp_case(graph/${program}.aggregate_warp INPUT ${input} AT ${line} APPLY aggregate)
  dp_case(graph/${program}.aggregate_block INPUT ${input} AT ${line} APPLY aggregate
                      PARAMS granularity=block)
  dp_case(graph/${program}.aggregate_grid INPUT ${input} AT ${line} APPLY aggregate
                      PARAMS granularity=grid)
  dp_case(graph/${program}.threshold_coarsen_aggregate INPUT ${input} AT ${line}
                      APPLY threshold,coarsen,aggregate PARAMS granularity=grid)
  # Applying a rewrite twice is refused.
  foreach(r threshold coarsen aggregate)
    dp_refusal(dp_${program}_${r}_twice INPUT ${input} AT ${line} APPLY ${r},${r}
                           EXPECT "already applied")
  endforeach()
endforeach()

# ---- fixtures ---------------------------------------------------------------
set(fx tests/fixtures/dp)
# 3-D child grid and block, `return` in the child, a parameter it modifies.
dp_case(dp/multidim.threshold INPUT ${fx}/multidim.cu AT 20 APPLY threshold PARAMS threshold=512)
dp_case(dp/multidim.coarsen INPUT ${fx}/multidim.cu AT 20 APPLY coarsen PARAMS factor=2)
dp_case(dp/multidim.coarsen_s2 INPUT ${fx}/multidim.cu AT 20 APPLY coarsen PARAMS strategy=2)
dp_case(dp/multidim.coarsen_s3 INPUT ${fx}/multidim.cu AT 20 APPLY coarsen PARAMS strategy=3)
dp_case(dp/multidim.aggregate_block INPUT ${fx}/multidim.cu AT 20 APPLY aggregate PARAMS granularity=block)
dp_case(dp/multidim.threshold_coarsen_aggregate INPUT ${fx}/multidim.cu AT 20
                    APPLY threshold,coarsen,aggregate PARAMS granularity=warp)
# Side effects in the configuration and arguments; the launch is in a loop.
dp_case(dp/side_effects.threshold INPUT ${fx}/side_effects.cu AT 14 APPLY threshold)
dp_case(dp/side_effects.aggregate_warp INPUT ${fx}/side_effects.cu AT 14 APPLY aggregate)
dp_case(dp/side_effects.aggregate_grid INPUT ${fx}/side_effects.cu AT 14 APPLY aggregate
                    PARAMS granularity=grid)
dp_refusal(dp_side_effects_aggregate_block_in_loop INPUT ${fx}/side_effects.cu AT 14 APPLY aggregate
                       PARAMS granularity=block EXPECT "in a loop")
# __shared__ and __syncthreads in the child.
dp_case(dp/shared_barrier.coarsen INPUT ${fx}/shared_barrier.cu AT 19 APPLY coarsen)
dp_refusal(dp_shared_barrier_threshold INPUT ${fx}/shared_barrier.cu AT 19 APPLY threshold
                       EXPECT "not serialisable: 'tile_sum' uses __syncthreads")
# A constant block: every aggregated block is one whole original block, so the
# barrier is reached by all its threads.
dp_case(dp/shared_barrier.aggregate_block INPUT ${fx}/shared_barrier.cu AT 19 APPLY aggregate PARAMS granularity=block)
dp_case(dp/shared_barrier.aggregate_grid INPUT ${fx}/shared_barrier.cu AT 19 APPLY aggregate PARAMS granularity=grid)
dp_refusal(dp_shared_barrier_dynamic_block_aggregate INPUT ${fx}/shared_barrier_dynamic_block.cu AT 19 APPLY aggregate
                       EXPECT "is not a compile-time constant")
# Device-side cudaDeviceSynchronize (gone in CDP2): refused by all three.
foreach(r threshold coarsen aggregate)
  dp_refusal(dp_device_sync_${r} INPUT ${fx}/device_sync.cu AT 10 APPLY ${r}
                         EXPECT "device-side cudaDeviceSynchronize")
endforeach()
# Host launches are not DP launches; the order threshold -> coarsen matters.
dp_refusal(dp_host_launch_threshold INPUT examples/graph/bfs.cu AT 100 APPLY threshold
                       EXPECT "host-side launch")
dp_refusal(dp_threshold_after_coarsen INPUT examples/graph/bfs.cu AT 50 APPLY coarsen,threshold
                       EXPECT "apply threshold before coarsen")

# A runnable program whose child has __shared__ memory and barriers, aggregated
# with a constant block (tests/gpu runs original against these goldens).
foreach(g warp block grid)
  dp_case(dp/row_tile_sum.aggregate_${g} INPUT tests/fixtures/dp/row_tile_sum.cu AT 28 APPLY aggregate PARAMS granularity=${g})
endforeach()

# Launch arguments of class type (issue #21): LonestarGPU's Graph, passed by
# value, has a __host__ default constructor, the Worklist none. threshold and
# coarsen copy the arguments and compile; aggregate and the launch templates
# would default-construct a record of them in device code: refused, naming the
# parameter and the constructor's place in the header.
set(lonestar_fx tests/fixtures/dp/graph_by_value.cu)
set(lonestar_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/dp)
foreach(at 21 35)
  nestor_rewrite_case(dp/graph_by_value.threshold_${at} INPUT ${lonestar_fx} AT ${at} APPLY threshold ${lonestar_inc})
  nestor_rewrite_case(dp/graph_by_value.coarsen_${at} INPUT ${lonestar_fx} AT ${at} APPLY coarsen ${lonestar_inc})
endforeach()
foreach(rw aggregate dbuf-global-launch dual-queue-launch dbuf-shared-launch dpar-opt-launch)
  string(REPLACE "-" "_" rw_name ${rw})
  dp_refusal(dp_graph_by_value_${rw_name}_host_ctor INPUT ${lonestar_fx} AT 21 APPLY ${rw}
    EXPECT "the parameter 'g' of relax_edges is a Graph and the default constructor of 'Graph' is a __host__ function (lonestar_graph.h:10)")
  dp_refusal(dp_graph_by_value_${rw_name}_no_ctor INPUT ${lonestar_fx} AT 35 APPLY ${rw}
    EXPECT "the parameter 'wl' of push_neighbours is a Worklist and 'Worklist' has no default constructor")
endforeach()
# --list names the header's line with its file, once.
add_test(NAME rewrite_listed.dp.graph_by_value_aggregate_refusal
  COMMAND ${CMAKE_COMMAND} -DNESTOR=$<TARGET_FILE:nestor> -DINPUT=${PROJECT_SOURCE_DIR}/${lonestar_fx} -DAT=21
          "-DEXPECT=is a __host__ function (lonestar_graph.h:10): the record of a launch's arguments would default-construct it in device code"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckListed.cmake)
set_tests_properties(rewrite_listed.dp.graph_by_value_aggregate_refusal PROPERTIES LABELS "rewrite")
# The ranking holds only what the engine offers (issues #21, #22): at a launch
# where aggregate (or every DP rewrite) is refused, --list gives the refused
# family one line with its reason; with nothing offered, the advice is to keep
# the original.
add_test(NAME rewrite_listed.dp.graph_by_value_mapping_not_made
  COMMAND ${CMAKE_COMMAND} -DNESTOR=$<TARGET_FILE:nestor> -DINPUT=${PROJECT_SOURCE_DIR}/${lonestar_fx} -DAT=21
          "-DEXPECT=aggregate: not offered: the parameter 'g' of relax_edges is a Graph and the default constructor of 'Graph' is a __host__ function (lonestar_graph.h:10)"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckListed.cmake)
add_test(NAME rewrite_listed.dp.device_sync_mapping_not_made
  COMMAND ${CMAKE_COMMAND} -DNESTOR=$<TARGET_FILE:nestor> -DINPUT=${PROJECT_SOURCE_DIR}/${fx}/device_sync.cu -DAT=10
          "-DEXPECT=threshold: not offered: device-side cudaDeviceSynchronize()"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckListed.cmake)
set_tests_properties(rewrite_listed.dp.graph_by_value_mapping_not_made rewrite_listed.dp.device_sync_mapping_not_made
                     PROPERTIES LABELS "rewrite")
