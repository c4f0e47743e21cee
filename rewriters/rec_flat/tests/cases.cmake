# rec-flat (rewriters/rec_flat, docs/rewrites-templates.md): the recursion
# templates' cases (rewriters/rec_common/tests/family.cmake) and rec-flat's
# own; goldens in tests/golden/recursion/. Registered by
# tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/rec_common/tests/family.cmake)
# rec-flat output must also build WITHOUT -rdc: no device launch is left.
nestor_rec_template_cases(rec-flat NVCC_NORDC)

set(trees_inc FLAGS -I${PROJECT_SOURCE_DIR}/examples/trees NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/trees)
# The host launch of the recursion selects the same rewrite.
nestor_rewrite_case(recursion/descendants.rec_flat_from_host INPUT examples/trees/descendants.cu AT "desc, 0u)"
  APPLY rec-flat ${trees_inc} NO_GPU "the same output as recursion/descendants.rec_flat")
# A graph BFS whose condition reads an atomic (rec-flat evaluates it after the
# pre-order statements, in the same thread). tests/fixtures/recursion is
# shared with tests/unit/RecursionTest.cpp.
set(rec_fx tests/fixtures/recursion/refusals.cu)
nestor_rewrite_case(recursion/refusals.graph_bfs_rec_flat INPUT ${rec_fx} AT "graph_bfs<<<(off" APPLY rec-flat)

# Li, Wu and Becchi's recursive BFS shape (tests/fixtures/recursion/bfs_rec.cu):
# children counted from threadIdx.x in one-block grids, the launch inside
# the child's `if`s after an atomicMin relaxation. rec-flat replays the
# child's statements with `return true` where the launch was
# (tests/gpu/recursion runs it against the original; rec-hier refuses).
set(bfs_rec_fx tests/fixtures/recursion/bfs_rec.cu)
set(graph_inc -I${PROJECT_SOURCE_DIR}/examples/graph)
nestor_rewrite_case(recursion/bfs_rec.rec_flat INPUT ${bfs_rec_fx} AT "bfs_dp<<<1, threads>>>" APPLY rec-flat
  FLAGS ${graph_inc} NVCC_FLAGS ${graph_inc} NVCC_NORDC)
nestor_rewrite_listed(recursion.bfs_rec_offers_rec_flat INPUT ${bfs_rec_fx} AT "bfs_dp<<<1, source_degree"
  FLAGS -- ${graph_inc} EXPECT "rec-flat: #1 rec-flat")

# Refusals, each naming the construct and its line.
nestor_rewrite_refusal(recursion.rec_flat_serial_loop_in_wide_grid INPUT ${rec_fx} AT "serial_wide<<<" APPLY rec-flat
  EXPECT "each child would be visited once per thread")
nestor_rewrite_refusal(recursion.rec_flat_depth_param INPUT ${rec_fx} AT "bounded<<<1, 64>>>(off, kids, depth_of"
  APPLY rec-flat EXPECT "changes a parameter besides the node (depth = depth + 1, line 65)")
nestor_rewrite_refusal(recursion.rec_flat_named_stream INPUT ${rec_fx} AT "on_stream<<<1, 32>>>" APPLY rec-flat
  EXPECT "the host launch at line 85 names a stream (st)")

# rec-flat says in its title that dynamic parallelism is no longer needed.
nestor_rewrite_listed(recursion.rec_flat_title INPUT examples/trees/descendants.cu AT "descendants<<<"
  AFTER "void descendants(" FLAGS --verbose -- -I${PROJECT_SOURCE_DIR}/examples/trees
  EXPECT "rec-flat [Remove the recursion's device launches (no CDP needed): level-synchronous worklist (rec-flat)")
