# CTE (cte, issue 4) on the irregular loops of tests/fixtures/loops/ (the GPU
# tests of tests/gpu/loops run every golden of golden/loops/ against its
# fixture). Registered by tests/rewrite/CMakeLists.txt.
set(loops_fx tests/fixtures/loops)
set(loops_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops)
nestor_rewrite_case(loops/spmv_csr.cte INPUT ${loops_fx}/spmv_csr.cu AT "for (int j = rowptr[row]" APPLY cte ${loops_inc})
nestor_rewrite_case(loops/spmv_csr.cte_disjoint INPUT ${loops_fx}/spmv_csr.cu AT "for (int j = rowptr[row]" APPLY cte
  PARAMS mode=disjoint ${loops_inc})
nestor_rewrite_case(loops/degree_gather.cte INPUT ${loops_fx}/degree_gather.cu AT "for (int e = offsets[v]" APPLY cte
  ${loops_inc})
# A loop whose body calls user __device__ helpers (pure by their bodies).
nestor_rewrite_case(loops/helper_sum.cte INPUT ${loops_fx}/helper_sum.cu AT "for (int e = offsets[v]" APPLY cte ${loops_inc})
nestor_rewrite_case(loops/nested_branch.cte INPUT ${loops_fx}/nested_branch.cu AT "for (int j = start"
  AFTER "branchy_rows(" APPLY cte ${loops_inc})
# Task descriptors (row, bias: thread-private values f(i) reads).
nestor_rewrite_case(loops/broadcast.cte INPUT ${loops_fx}/broadcast.cu AT "for (int j = 0" APPLY cte ${loops_inc})
# A conditional update whose condition reads the thread's v (a task
# descriptor), and the two-statement form (`int u = adj[e]; if (...) sum += w[e];`).
nestor_rewrite_case(loops/cond_count.cte INPUT ${loops_fx}/cond_count.cu AT "for (int e = row[v]"
  AFTER "void same_label_count(" APPLY cte ${loops_inc})
nestor_rewrite_case(loops/cond_count.weight_cte INPUT ${loops_fx}/cond_count.cu AT "for (int e = row[v]"
  AFTER "void label_weight(" APPLY cte ${loops_inc})
# Two scalars from memory declared in one statement, read as task descriptors.
nestor_rewrite_case(loops/split_decl.window_cte INPUT ${loops_fx}/split_decl.cu AT "for (int k = start[i]" APPLY cte
  ${loops_inc})

nestor_rewrite_refusal(loops.cte_uniform_trip INPUT ${loops_fx}/tmv.cu AT "for (int i = 0" APPLY cte
  EXPECT "not irregular")
nestor_rewrite_refusal(loops.cte_not_associative INPUT ${loops_fx}/refusals.cu AT "for (int j = lo[threadIdx.x]"
  APPLY cte EXPECT "not an associative reduction")
# Conditional updates that are not a reduction of `c ? x : 0`
# (rewriters/loop_common/tests/cond_refusals.cu; subwarp's cases read it too).
nestor_rewrite_refusal(loops.cte_cond_else INPUT rewriters/loop_common/tests/cond_refusals.cu AT "^if_else" APPLY cte
  EXPECT "the conditional update has an `else` branch")
nestor_rewrite_refusal(loops.cte_cond_max INPUT rewriters/loop_common/tests/cond_refusals.cu AT "^cond_max" APPLY cte
  EXPECT "is a max reduction, whose identity is not 0")
# A task runs on whichever lane takes it: the owner's threadIdx, read in the
# loop body or in a helper it calls, is not the lane's; a helper of pure
# arithmetic is fine (tests/fixtures/loops/callee_identity.cu).
set(callee_k "for (int k = rowptr[row]")
nestor_rewrite_refusal(loops.cte_callee_reads_lane INPUT ${loops_fx}/callee_identity.cu AT "${callee_k}"
  AFTER "csr_lane_weighted(" APPLY cte EXPECT "the loop body reads threadIdx: CTE runs each task on another lane")
nestor_rewrite_refusal(loops.cte_body_reads_lane INPUT ${loops_fx}/callee_identity.cu AT "${callee_k}"
  AFTER "csr_lane_weighted_inline(" APPLY cte EXPECT "the loop body reads threadIdx: CTE runs each task on another lane")
nestor_rewrite_listed(loops.cte_pure_helper_offered INPUT ${loops_fx}/callee_identity.cu AT "${callee_k}"
  AFTER "csr_squares(" EXPECT "cte: #")
# A row from a function pointer may differ per thread (the trip count is
# irregular); the loop templates, which replay rows on other threads, refuse
# the call (tests/fixtures/loops/indirect_callees.cu), CTE keeps it outside its tasks.
nestor_rewrite_listed(loops.cte_row_from_pointer_offered INPUT ${loops_fx}/indirect_callees.cu AT "${callee_k}"
  AFTER "csr_rows_pointer(" EXPECT "cte: #")
nestor_rewrite_refusal(loops.dbuf_global_row_from_pointer INPUT ${loops_fx}/indirect_callees.cu AT "${callee_k}"
  AFTER "csr_rows_pointer(" APPLY dbuf-global
  EXPECT "the kernel calls through 'rowOf', and Nestor cannot see which function runs there: a replayed row")
nestor_rewrite_listed(loops.cte_row_from_helper_offered INPUT ${loops_fx}/callee_identity.cu AT "${callee_k}"
  AFTER "csr_row_from_helper(" EXPECT "cte: #")
# The row index from a helper (tests/fixtures/loops/helper_row.cu): irregular
# through the helper; tests/gpu/loops runs the golden against the fixture.
nestor_rewrite_case(loops/helper_row.cte INPUT ${loops_fx}/helper_row.cu AT "for (int j = rowptr[row]" APPLY cte ${loops_inc})
