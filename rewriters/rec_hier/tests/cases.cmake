# rec-hier (rewriters/rec_hier, docs/rewrites-templates.md): the recursion
# templates' cases (rewriters/rec_common/tests/family.cmake) and rec-hier's
# own; goldens in tests/golden/recursion/. Registered by
# tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/rec_common/tests/family.cmake)
nestor_rec_template_cases(rec-hier)

# Applied twice: the rewritten kernel is block-mapped (barriers), not the input shape.
nestor_rec_self_launch_refusal(twice APPLY rec-hier,rec-hier EXPECT "calls __syncthreads")

# A depth parameter (rec-hier carries it one level down); a grid-stride loop
# over the children is the same recursion as one thread per child.
# tests/fixtures/recursion is shared with tests/unit/RecursionTest.cpp.
set(rec_fx tests/fixtures/recursion/refusals.cu)
nestor_rewrite_case(recursion/refusals.bounded_rec_hier INPUT ${rec_fx} AT "bounded<<<1, 64>>>(off, kids, depth_of"
  APPLY rec-hier)
nestor_rewrite_case(recursion/refusals.strided_rec_hier INPUT ${rec_fx} AT "strided<<<" APPLY rec-hier)

# Li, Wu and Becchi's recursive BFS shape (tests/fixtures/recursion/bfs_rec.cu,
# which rec-flat rewrites): the launch inside the child's `if`s after an
# atomicMin relaxation; rec-hier refuses.
set(graph_inc -I${PROJECT_SOURCE_DIR}/examples/graph)
nestor_rewrite_refusal(recursion.rec_hier_bfs_rec INPUT tests/fixtures/recursion/bfs_rec.cu
  AT "bfs_dp<<<1, threads>>>" APPLY rec-hier FLAGS ${graph_inc}
  EXPECT "the self-launch is inside the child's statements (line 34): whether a child recurses is known only after them")

# Refusals, each naming the construct and its line.
nestor_rewrite_refusal(recursion.rec_hier_sibling_sum INPUT ${rec_fx} AT "sibling_sum<<<" APPLY rec-hier
  EXPECT "writes 'before', declared outside the per-child part: state carried between siblings (line 101)")
nestor_rewrite_refusal(recursion.rec_hier_condition_not_on_tree INPUT ${rec_fx} AT "graph_bfs<<<(off" APPLY rec-hier
  EXPECT "reads 'old', whose initialiser has side effects (line 53)")
