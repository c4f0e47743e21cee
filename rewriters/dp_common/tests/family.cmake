# The dynamic-parallelism rewrites (threshold, coarsen, aggregate;
# rewriters/{threshold,coarsen,aggregate}, docs/rewrites-dp.md): the cases
# written once for the family, as functions that each rewrite's
# rewriters/<folder>/tests/cases.cmake calls for itself (issue #25; its
# goldens go to its own tests/golden/, docs/testing.md). Some also serve the
# load-balancing launch templates (rewriters/lb_common/tests/family.cmake),
# which rewrite a device launch too.
#
#   nestor_dp_rewrite_cases(<id>)          what threshold, coarsen and aggregate
#                                          each get: refusals (applied twice,
#                                          device-side sync, tail launch) and
#                                          the launch after the #includes
#   nestor_dp_case(<name> ...)             nestor_rewrite_case with examples/graph
#                                          on nvcc's include path
#   nestor_dp_graph_cases(<variant> APPLY <rewrites> [PARAMS ...] [GPU_ALSO ...])
#                                          graph/<program>.<variant> on each graph program
#   nestor_dp_argument_copy_cases(<id>)    a class-type launch argument, copied
#   nestor_dp_argument_record_refusals(<id>)  ... refused where a record of it
#                                          would be default-constructed
#   nestor_dp_launch_after_includes_case(<id>)
#   nestor_dp_tail_launch_refusal(<id>)
#
# The inputs of this folder (multidim.cu, side_effects.cu, shared_barrier*.cu,
# device_sync.cu) stay here, for the whole family. A case's INPUT is resolved
# against the calling cases file's folder, then the repository root, never as
# an absolute path (tests/rewrite/CMakeLists.txt): the functions name them
# from the root (`fx`, this folder), the rewrites' cases files as
# rewriters/dp_common/tests/<input>.
#
# The graph goldens are named golden/graph/<program>.<variant>.cu: tests/gpu
# checks each against examples/graph/<program>.cu on the GPU, and
# bench/graph/run.sh --variants rewriters/*/tests/golden/graph times them.
include_guard(GLOBAL)

# The graph programs of examples/graph and the text of their device launch,
# as two lists in step: foreach(program launch IN ZIP_LISTS programs launches).
function(nestor_dp_graph_launches programs launches)
  set(${programs} neighbour_sum bfs sssp PARENT_SCOPE)
  set(${launches} "ns_child<<<" "bfs_child<<<" "sssp_child<<<" PARENT_SCOPE)
endfunction()

function(nestor_dp_case name)
  # The graph goldens include "graph.h" from examples/graph.
  nestor_rewrite_case(${name} ${ARGN} NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/graph)
endfunction()

# The golden graph/<program>.<variant> of APPLY (PARAMS) at each graph
# program's device launch.
function(nestor_dp_graph_cases variant)
  cmake_parse_arguments(ARG "" "APPLY" "PARAMS;GPU_ALSO" ${ARGN})
  nestor_dp_graph_launches(programs launches)
  foreach(program launch IN ZIP_LISTS programs launches)
    nestor_dp_case(graph/${program}.${variant} INPUT examples/graph/${program}.cu AT "${launch}" APPLY ${ARG_APPLY}
      PARAMS ${ARG_PARAMS} GPU_ALSO ${ARG_GPU_ALSO})
  endforeach()
endfunction()

function(nestor_dp_rewrite_cases rw)
  file(RELATIVE_PATH fx "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
  # Applying a rewrite twice is refused.
  nestor_dp_graph_launches(programs launches)
  foreach(program launch IN ZIP_LISTS programs launches)
    nestor_rewrite_refusal(dp_${program}_${rw}_twice INPUT examples/graph/${program}.cu AT "${launch}"
      APPLY ${rw},${rw} EXPECT "already applied")
  endforeach()
  # Device-side cudaDeviceSynchronize (gone in CDP2): refused by all three.
  nestor_rewrite_refusal(dp_device_sync_${rw} INPUT ${fx}/device_sync.cu AT "^" APPLY ${rw}
                         EXPECT "device-side cudaDeviceSynchronize")
  nestor_dp_launch_after_includes_case(${rw})
  nestor_dp_tail_launch_refusal(${rw})
endfunction()

# Launch arguments of class type (issue #21): LonestarGPU's Graph, passed by
# value, has a __host__ default constructor, the Worklist none (the goldens'
# suffixes _21 and _35 are names: the launches of relax_edges and
# push_neighbours). threshold and coarsen copy the arguments and compile ...
function(nestor_dp_argument_copy_cases rw)
  foreach(entry "21|relax_edges<<<" "35|push_neighbours<<<")
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 suffix)
    list(GET parts 1 launch)
    nestor_rewrite_case(dp/graph_by_value.${rw}_${suffix} INPUT tests/fixtures/dp/graph_by_value.cu AT "${launch}"
      APPLY ${rw} NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/dp)
  endforeach()
endfunction()

# ... aggregate and the launch templates would default-construct a record of
# them in device code: refused, naming the parameter and the constructor's
# place in the header.
function(nestor_dp_argument_record_refusals rw)
  string(REPLACE "-" "_" rw_name ${rw})
  set(lonestar_fx tests/fixtures/dp/graph_by_value.cu)
  nestor_rewrite_refusal(dp_graph_by_value_${rw_name}_host_ctor INPUT ${lonestar_fx} AT "relax_edges<<<" APPLY ${rw}
    EXPECT "the parameter 'g' of relax_edges is a Graph and the default constructor of 'Graph' is a __host__ function (lonestar_graph.h:10)")
  nestor_rewrite_refusal(dp_graph_by_value_${rw_name}_no_ctor INPUT ${lonestar_fx} AT "push_neighbours<<<" APPLY ${rw}
    EXPECT "the parameter 'wl' of push_neighbours is a Worklist and 'Worklist' has no default constructor")
endfunction()

# Every offer applies (issue #21): a launch directly after the #include lines,
# where the runtime include and the code a rewrite puts before the child share
# one offset (tests/fixtures/edits, which rewrite_all_offers also reads). Each
# rewrite offered there is applied and its golden compiled.
function(nestor_dp_launch_after_includes_case rw)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_case(edits/launch_after_includes.${rw_name} INPUT tests/fixtures/edits/launch_after_includes.cu
    AT "add_one<<<" APPLY ${rw})
endfunction()

# A tail launch (the post-order step of examples/trees/descendants.cu) runs
# after its grid and everything the grid launched: no dynamic-parallelism
# rewrite may serialise, buffer, merge or coarsen it (threshold made tree
# sizes wrong, dpar-opt-launch did not compile, on the held-out tree_sizes.cu).
function(nestor_dp_tail_launch_refusal rw)
  nestor_rewrite_refusal(recursion.tail_launch_${rw} INPUT examples/trees/descendants.cu AT "add_children<<<"
    APPLY ${rw} FLAGS -I${PROJECT_SOURCE_DIR}/examples/trees
    EXPECT "the launch of add_children goes into cudaStreamTailLaunch (line 28): it starts only after this grid")
endfunction()
