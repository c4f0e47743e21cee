# Recursion templates (issue 12, irregular-loop-and-recursion-templates.md
# II-C): rec-hier and rec-flat (rewriters/rec_hier, rewriters/rec_flat), their
# cases written once for the family; each golden lives with its rewrite
# (rewriters/<rewrite>/tests/golden/recursion/<program>.<rewrite>.cu, each
# compiled with nvcc; tests/gpu/recursion runs them against the originals).
# rec-flat output must also build WITHOUT -rdc: no device launch is left.
# Registered by tests/rewrite/CMakeLists.txt.
set(trees_inc FLAGS -I${PROJECT_SOURCE_DIR}/examples/trees NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/trees)
# Each program's self-launch: the first launch of the kernel after its definition.
foreach(program descendants heights tree_levels tree_levels_serial)
  set(kernel ${program})
  if(program STREQUAL tree_levels_serial)
    set(kernel levels_serial)
  endif()
  set(site INPUT examples/trees/${program}.cu AT "${kernel}<<<" AFTER "void ${kernel}(")
  nestor_rewrite_case(recursion/${program}.rec_hier ${site} APPLY rec-hier ${trees_inc})
  nestor_rewrite_case(recursion/${program}.rec_flat ${site} APPLY rec-flat ${trees_inc} NVCC_NORDC)
  if(NESTOR_NVCC)
    # The inputs themselves build as CDP2 programs (-rdc, cudadevrt).
    add_test(NAME rewrite_nvcc.recursion/${program}.original
      COMMAND ${NESTOR_NVCC} -rdc=true -arch=sm_90 -std=c++17 -c ${PROJECT_SOURCE_DIR}/examples/trees/${program}.cu
              -o ${CMAKE_CURRENT_BINARY_DIR}/recursion/${program}.original.o)
    set_tests_properties(rewrite_nvcc.recursion/${program}.original PROPERTIES LABELS "rewrite;nvcc")
  endif()
  # Applied twice: the rewritten kernel is block-mapped (barriers), not the input shape.
  nestor_rewrite_refusal(recursion.${program}_twice ${site} APPLY rec-hier,rec-hier
    FLAGS -I${PROJECT_SOURCE_DIR}/examples/trees EXPECT "calls __syncthreads")
endforeach()
if(NESTOR_NVCC)
  add_test(NAME rewrite_nvcc_nordc.recursion/descendants_flat_handwritten
    COMMAND ${NESTOR_NVCC} -arch=sm_90 -std=c++17 -c ${PROJECT_SOURCE_DIR}/examples/trees/descendants_flat.cu
            -o ${CMAKE_CURRENT_BINARY_DIR}/recursion/descendants_flat.o)
  set_tests_properties(rewrite_nvcc_nordc.recursion/descendants_flat_handwritten PROPERTIES LABELS "rewrite;nvcc")
endif()
# The host launch of the recursion selects the same rewrite.
nestor_rewrite_case(recursion/descendants.rec_flat_from_host INPUT examples/trees/descendants.cu AT "desc, 0u)"
  APPLY rec-flat ${trees_inc})
# A depth parameter (rec-hier carries it one level down) and a graph BFS whose
# condition reads an atomic (rec-flat evaluates it after the pre-order
# statements, in the same thread). tests/fixtures/recursion is shared with
# tests/unit/RecursionTest.cpp.
set(rec_fx tests/fixtures/recursion/refusals.cu)
nestor_rewrite_case(recursion/refusals.bounded_rec_hier INPUT ${rec_fx} AT "bounded<<<1, 64>>>(off, kids, depth_of"
  APPLY rec-hier)
nestor_rewrite_case(recursion/refusals.graph_bfs_rec_flat INPUT ${rec_fx} AT "graph_bfs<<<(off" APPLY rec-flat)
# A grid-stride loop over the children is the same recursion as one thread per child.
nestor_rewrite_case(recursion/refusals.strided_rec_hier INPUT ${rec_fx} AT "strided<<<" APPLY rec-hier)

# Li, Wu and Becchi's recursive BFS shape (tests/fixtures/recursion/bfs_rec.cu):
# children counted from threadIdx.x in one-block grids, the launch inside
# the child's `if`s after an atomicMin relaxation. rec-flat replays the
# child's statements with `return true` where the launch was
# (tests/gpu/recursion runs it against the original); rec-hier refuses.
set(bfs_rec_fx tests/fixtures/recursion/bfs_rec.cu)
set(graph_inc -I${PROJECT_SOURCE_DIR}/examples/graph)
nestor_rewrite_case(recursion/bfs_rec.rec_flat INPUT ${bfs_rec_fx} AT "bfs_dp<<<1, threads>>>" APPLY rec-flat
  FLAGS ${graph_inc} NVCC_FLAGS ${graph_inc} NVCC_NORDC)
nestor_rewrite_refusal(recursion.rec_hier_bfs_rec INPUT ${bfs_rec_fx} AT "bfs_dp<<<1, threads>>>" APPLY rec-hier
  FLAGS ${graph_inc}
  EXPECT "the self-launch is inside the child's statements (line 34): whether a child recurses is known only after them")
nestor_rewrite_listed(recursion.bfs_rec_offers_rec_flat INPUT ${bfs_rec_fx} AT "bfs_dp<<<1, source_degree"
  FLAGS -- ${graph_inc} EXPECT "rec-flat: #1 rec-flat")

# Refusals, each naming the construct and its line.
set(counted_fx tests/fixtures/recursion/counted.cu)
foreach(rw rec-hier rec-flat)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_refusal(recursion.${rw_name}_not_csr INPUT ${rec_fx} AT "binary<<<" APPLY ${rw}
    EXPECT "the recursion is not over CSR children (line 4)")
  nestor_rewrite_refusal(recursion.${rw_name}_carried_state INPUT ${rec_fx} AT "carried<<<" APPLY ${rw}
    EXPECT "writes 'budget', declared outside the per-child part: state carried between siblings (line 12)")
  nestor_rewrite_refusal(recursion.${rw_name}_needs_result INPUT ${rec_fx} AT "needs_result<<<1, 32>>>" APPLY ${rw}
    EXPECT "needs the child's results before its grid has finished")
  nestor_rewrite_refusal(recursion.${rw_name}_shared INPUT ${rec_fx} AT "with_shared<<<" APPLY ${rw}
    EXPECT "__shared__ 'seen'")
  nestor_rewrite_refusal(recursion.${rw_name}_barrier INPUT ${rec_fx} AT "with_barrier<<<" APPLY ${rw}
    EXPECT "calls __syncthreads (line 38)")
  nestor_rewrite_refusal(recursion.${rw_name}_not_recursive INPUT rewriters/lb_common/tests/launch_refusals.cu
    AT "^child_shared" APPLY ${rw} EXPECT "is not recursive")
  # Children counted from 0 (the form above), each with one fault.
  nestor_rewrite_refusal(recursion.${rw_name}_counted_wide_grid INPUT ${counted_fx} AT "count_wide<<<2" APPLY ${rw}
    EXPECT "the self-launch's grid is 2 blocks, not one block: every block would visit every child (line 11)")
  nestor_rewrite_refusal(recursion.${rw_name}_counted_reads_node_local INPUT ${counted_fx} AT "count_local<<<"
    AFTER "void count_local(" APPLY ${rw}
    EXPECT "the child's statements read 'first', which the kernel computes once per node before its loop")
  nestor_rewrite_refusal(recursion.${rw_name}_counted_launch_in_loop INPUT ${counted_fx} AT "for (int again = 0"
    APPLY ${rw}
    EXPECT "the self-launch is inside a loop of the child's statements: only `if`s and blocks may lie between them and the launch (line 28)")
  nestor_rewrite_refusal(recursion.${rw_name}_counted_statement_after INPUT ${counted_fx} AT "count_after<<<"
    AFTER "void count_after(" APPLY ${rw}
    EXPECT "statement after the self-launch needs the child's results before its grid has finished")
  nestor_rewrite_refusal(recursion.${rw_name}_counted_host_wide_grid INPUT ${counted_fx} AT "count_host_wide<<<4"
    APPLY ${rw} EXPECT "the host launch at line 55 runs `4` blocks")
endforeach()
nestor_rewrite_refusal(recursion.rec_hier_sibling_sum INPUT ${rec_fx} AT "sibling_sum<<<" APPLY rec-hier
  EXPECT "writes 'before', declared outside the per-child part: state carried between siblings (line 101)")
nestor_rewrite_refusal(recursion.rec_flat_serial_loop_in_wide_grid INPUT ${rec_fx} AT "serial_wide<<<" APPLY rec-flat
  EXPECT "each child would be visited once per thread")
nestor_rewrite_refusal(recursion.rec_hier_condition_not_on_tree INPUT ${rec_fx} AT "graph_bfs<<<(off" APPLY rec-hier
  EXPECT "reads 'old', whose initialiser has side effects (line 53)")
nestor_rewrite_refusal(recursion.rec_flat_depth_param INPUT ${rec_fx} AT "bounded<<<1, 64>>>(off, kids, depth_of"
  APPLY rec-flat EXPECT "changes a parameter besides the node (depth = depth + 1, line 65)")
nestor_rewrite_refusal(recursion.rec_flat_named_stream INPUT ${rec_fx} AT "on_stream<<<1, 32>>>" APPLY rec-flat
  EXPECT "the host launch at line 85 names a stream (st)")

# rec-flat says in its title that dynamic parallelism is no longer needed.
nestor_rewrite_listed(recursion.rec_flat_title INPUT examples/trees/descendants.cu AT "descendants<<<"
  AFTER "void descendants(" FLAGS --verbose -- -I${PROJECT_SOURCE_DIR}/examples/trees
  EXPECT "rec-flat [Remove the recursion's device launches (no CDP needed): level-synchronous worklist (rec-flat)")

# A tail launch (the post-order step) runs after its grid and everything the
# grid launched: no dynamic-parallelism rewrite may serialise, buffer, merge
# or coarsen it (threshold made tree sizes wrong, dpar-opt-launch did not
# compile, on the held-out tree_sizes.cu).
foreach(rw threshold coarsen aggregate dual-queue-launch dpar-opt-launch)
  nestor_rewrite_refusal(recursion.tail_launch_${rw} INPUT examples/trees/descendants.cu AT "add_children<<<"
    APPLY ${rw} FLAGS -I${PROJECT_SOURCE_DIR}/examples/trees
    EXPECT "the launch of add_children goes into cudaStreamTailLaunch (line 28): it starts only after this grid")
endforeach()
