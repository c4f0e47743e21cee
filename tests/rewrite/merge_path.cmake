# merge-path (issue 23; Merrill and Garland, SC'16): the reduction loops of the
# CSR fixtures of tests/fixtures/loops/ (SpMV: + of products; degree gather:
# max; helper sum: + through user __device__ helpers). Every golden compiles
# with nvcc (rewrite_nvcc.*) and runs against its original on the GPU
# (tests/gpu/merge_path/); bench/spmv times the SpMV golden against cuSPARSE.
set(mp_loops_fx tests/fixtures/loops)
set(mp_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops)
nestor_rewrite_case(merge_path/spmv_csr.merge_path INPUT ${mp_loops_fx}/spmv_csr.cu AT 9 APPLY merge-path ${mp_inc})
nestor_rewrite_case(merge_path/degree_gather.merge_path INPUT ${mp_loops_fx}/degree_gather.cu AT 9 APPLY merge-path ${mp_inc})
nestor_rewrite_case(merge_path/helper_sum.merge_path INPUT ${mp_loops_fx}/helper_sum.cu AT 15 APPLY merge-path ${mp_inc})

# The other guard form (`if (row < n) { loop; epilogue }`), 64-bit offsets,
# a double max with a user epilogue (compile check only: no GPU program).
nestor_rewrite_case(merge_path/guard_then.merge_path INPUT tests/fixtures/merge_path/guard_then.cu AT 10 APPLY merge-path)

# The bounds held in locals of a single definition (Li, Wu and Becchi's SpMV;
# nestor/DefUse.h); also runs on the GPU (tests/gpu/merge_path).
nestor_rewrite_case(merge_path/spmv_locals.merge_path INPUT tests/fixtures/merge_path/spmv_locals.cu AT 12 APPLY merge-path ${mp_inc})

# The epilogue not fused into the merge kernel (the row pass finishes the
# rows; the merge kernel's comment says why): a row index that hard-codes the
# block size (also runs on the GPU), an epilogue that reads blockIdx, ...
nestor_rewrite_case(merge_path/spmv_fixed_block.merge_path INPUT tests/fixtures/merge_path/spmv_fixed_block.cu AT 12
  APPLY merge-path ${mp_inc})
nestor_rewrite_case(merge_path/epilogue_block.merge_path INPUT tests/fixtures/merge_path/epilogue_block.cu AT 12
  APPLY merge-path)
# ... a helper of the epilogue reads threadIdx; a guard with an else branch.
nestor_rewrite_case(merge_path/not_fused.helper_lane.merge_path INPUT tests/fixtures/merge_path/not_fused.cu AT 19
  APPLY merge-path)
nestor_rewrite_case(merge_path/not_fused.guard_else.merge_path INPUT tests/fixtures/merge_path/not_fused.cu AT 29
  APPLY merge-path)

# Refusals, each naming the construct and its line.
set(mp_tmpl_fx tests/fixtures/templates/refusals.cu)
nestor_rewrite_refusal(merge_path.not_csr INPUT ${mp_tmpl_fx} AT 10 APPLY merge-path EXPECT "are not a CSR-like pair")
nestor_rewrite_refusal(merge_path.nested INPUT ${mp_tmpl_fx} AT 20 APPLY merge-path EXPECT "nested in the loop at line 18")
nestor_rewrite_refusal(merge_path.store_before_loop INPUT ${mp_tmpl_fx} AT 44 APPLY merge-path
  EXPECT "statement at line 42 writes memory before the loop")
nestor_rewrite_refusal(merge_path.reads_local INPUT ${mp_tmpl_fx} AT 53 APPLY merge-path EXPECT "reads the thread's 'scale'")
nestor_rewrite_refusal(merge_path.named_stream INPUT ${mp_tmpl_fx} AT 62 APPLY merge-path EXPECT "line 67 names a stream (st)")
nestor_rewrite_refusal(merge_path.uniform_trip INPUT tests/fixtures/loops/tmv.cu AT 11 APPLY merge-path EXPECT "not irregular")
set(mp_fx tests/fixtures/merge_path/refusals.cu)
nestor_rewrite_refusal(merge_path.no_guard INPUT ${mp_fx} AT 9 APPLY merge-path EXPECT "no guard `if (i < n)`")
nestor_rewrite_refusal(merge_path.not_a_reduction INPUT ${mp_fx} AT 18 APPLY merge-path
  EXPECT "the loop is not a reduction merge-path can split")
nestor_rewrite_refusal(merge_path.row_index_changed INPUT ${mp_fx} AT 36 APPLY merge-path
  EXPECT "the row index's 'i' is changed at line 34")
nestor_rewrite_refusal(merge_path.bool_accumulator INPUT ${mp_fx} AT 49 APPLY merge-path
  EXPECT "the accumulator 'any' is a bool")
nestor_rewrite_refusal(merge_path.locals_shadowed INPUT ${mp_fx} AT 67 APPLY merge-path
  EXPECT "'i' is declared again at line 65")
nestor_rewrite_refusal(merge_path.local_written INPUT ${mp_fx} AT 81 APPLY merge-path
  EXPECT "are not a CSR-like pair")
# A loop of independent iterations with stores (bfs's relaxation): not handled yet.
nestor_rewrite_refusal(merge_path.for_each INPUT bench/graph/flat/bfs.cu AT 26 APPLY merge-path
  EXPECT "loops of independent iterations without a result are not handled yet")
add_test(NAME rewrite_listed.merge_path.spmv_csr
  COMMAND ${CMAKE_COMMAND} -DNESTOR=$<TARGET_FILE:nestor> -DINPUT=${PROJECT_SOURCE_DIR}/${mp_loops_fx}/spmv_csr.cu -DAT=9 -DFLAGS=--verbose
          "-DEXPECT=merge-path [Merge-path: split the iterations, not the rows, evenly over blocks (reassociates the reduction)"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckListed.cmake)
set_tests_properties(rewrite_listed.merge_path.spmv_csr PROPERTIES LABELS "rewrite")
