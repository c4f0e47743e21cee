# merge-path (issue 23; Merrill and Garland, SC'16). Registered by
# tests/rewrite/CMakeLists.txt. The reduction loops of the CSR fixtures of
# tests/fixtures/loops/ (SpMV: + of products; degree gather: max; helper sum:
# + through user __device__ helpers) and of tests/fixtures/merge_path/
# (spmv_locals, spmv_fixed_block): shared with the GPU tests of
# tests/gpu/merge_path, which run every golden of golden/merge_path/ against
# its original; bench/spmv times the SpMV golden against cuSPARSE. The inputs
# here (tests/) only these cases read: their targets carry cursor markers.
set(mp_loops_fx tests/fixtures/loops)
set(mp_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops)
nestor_rewrite_case(merge_path/spmv_csr.merge_path INPUT ${mp_loops_fx}/spmv_csr.cu AT "for (int j = rowptr[row]"
  APPLY merge-path ${mp_inc})
nestor_rewrite_case(merge_path/degree_gather.merge_path INPUT ${mp_loops_fx}/degree_gather.cu
  AT "for (int e = offsets[v]" APPLY merge-path ${mp_inc})
nestor_rewrite_case(merge_path/helper_sum.merge_path INPUT ${mp_loops_fx}/helper_sum.cu AT "for (int e = offsets[v]"
  APPLY merge-path ${mp_inc})
# Conditional updates (`if (c) cnt++;`: + of `c ? 1 : 0`; `int u = adj[e];
# if (label[u] == target) sum += w[e];`: the local written as its initialiser).
nestor_rewrite_case(merge_path/cond_count.merge_path INPUT ${mp_loops_fx}/cond_count.cu AT "for (int e = row[v]"
  AFTER "void heavy_neighbours(" APPLY merge-path ${mp_inc})
nestor_rewrite_case(merge_path/cond_count.weight_merge_path INPUT ${mp_loops_fx}/cond_count.cu AT "for (int e = row[v]"
  AFTER "void label_weight(" APPLY merge-path ${mp_inc})

# The other guard form (`if (row < n) { loop; epilogue }`), 64-bit offsets,
# a double max with a user epilogue (compile check only: no GPU program).
nestor_rewrite_case(merge_path/guard_then.merge_path INPUT guard_then.cu AT "^" APPLY merge-path)

# The bounds held in locals of a single definition (Li, Wu and Becchi's SpMV;
# nestor/DefUse.h); also runs on the GPU (tests/gpu/merge_path).
nestor_rewrite_case(merge_path/spmv_locals.merge_path INPUT tests/fixtures/merge_path/spmv_locals.cu
  AT "for (int i = start" APPLY merge-path ${mp_inc})

# The epilogue not fused into the merge kernel (the row pass finishes the
# rows; the merge kernel's comment says why): a row index that hard-codes the
# block size (also runs on the GPU), an epilogue that reads blockIdx, ...
nestor_rewrite_case(merge_path/spmv_fixed_block.merge_path INPUT tests/fixtures/merge_path/spmv_fixed_block.cu
  AT "for (int j = rowptr[row]" APPLY merge-path ${mp_inc})
nestor_rewrite_case(merge_path/epilogue_block.merge_path INPUT epilogue_block.cu AT "^" APPLY merge-path)
# ... a helper of the epilogue reads threadIdx; a guard with an else branch.
nestor_rewrite_case(merge_path/not_fused.helper_lane.merge_path INPUT not_fused.cu AT "^helper_lane" APPLY merge-path)
nestor_rewrite_case(merge_path/not_fused.guard_else.merge_path INPUT not_fused.cu AT "^guard_else" APPLY merge-path)
# ... another loop over the row after it (a row normalisation): the merge
# kernel's blocks would wait for their longest row.
nestor_rewrite_case(merge_path/not_fused_loop.second_loop.merge_path INPUT not_fused_loop.cu AT "^second_loop"
  APPLY merge-path)
# The same kernel in a runnable program (also runs on the GPU).
nestor_rewrite_case(merge_path/row_normalize.merge_path INPUT tests/fixtures/merge_path/row_normalize.cu
  AT "for (int e = rowptr[r]" AFTER "float s = 0.0f;" APPLY merge-path ${mp_inc})

# Refusals, each naming the construct and its line; the load-balancing
# templates' refusal kernels (rewriters/lb_common/tests/refusals.cu) first.
set(mp_tmpl_fx rewriters/lb_common/tests/refusals.cu)
nestor_rewrite_refusal(merge_path.template_kernel INPUT rewriters/lb_common/tests/template_kernel.cu AT "^" APPLY merge-path
  EXPECT "'row_sums_t' is a template kernel")
nestor_rewrite_refusal(merge_path.not_csr INPUT ${mp_tmpl_fx} AT "^not_csr" APPLY merge-path
  EXPECT "are not a CSR-like pair")
nestor_rewrite_refusal(merge_path.nested INPUT ${mp_tmpl_fx} AT "^nested" APPLY merge-path
  EXPECT "nested in the loop at line 18")
nestor_rewrite_refusal(merge_path.store_before_loop INPUT ${mp_tmpl_fx} AT "^store_before_loop" APPLY merge-path
  EXPECT "statement at line 42 writes memory before the loop")
nestor_rewrite_refusal(merge_path.reads_local INPUT ${mp_tmpl_fx} AT "^reads_local" APPLY merge-path
  EXPECT "reads the thread's 'scale'")
nestor_rewrite_refusal(merge_path.named_stream INPUT ${mp_tmpl_fx} AT "^named_stream" APPLY merge-path
  EXPECT "line 67 names a stream (st)")
nestor_rewrite_refusal(merge_path.uniform_trip INPUT tests/fixtures/loops/tmv.cu AT "for (int i = 0" APPLY merge-path
  EXPECT "not irregular")
foreach(entry
    "no_guard|no guard `if (i < n)`"
    "not_a_reduction|the loop is not a reduction merge-path can split"
    "row_index_changed|the row index's 'i' is changed at line 34"
    "bool_accumulator|the accumulator 'any' is a bool"
    "locals_shadowed|'i' is declared again at line 65"
    "local_written|are not a CSR-like pair")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 what)
  list(GET parts 1 expect)
  nestor_rewrite_refusal(merge_path.${what} INPUT refusals.cu AT "^${what}" APPLY merge-path EXPECT "${expect}")
endforeach()
# A loop of independent iterations with stores (bfs's relaxation): not handled yet.
nestor_rewrite_refusal(merge_path.for_each INPUT bench/graph/flat/bfs.cu AT "for (unsigned e = offsets[gid]"
  APPLY merge-path EXPECT "loops of independent iterations without a result are not handled yet")
nestor_rewrite_listed(merge_path.spmv_csr INPUT ${mp_loops_fx}/spmv_csr.cu AT "for (int j = rowptr[row]" FLAGS --verbose
  EXPECT "merge-path [Merge-path: split the iterations, not the rows, evenly over blocks (reassociates the reduction)")
