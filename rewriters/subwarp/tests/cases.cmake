# Sub-warp (subwarp, issue 4) on the irregular loops of tests/fixtures/loops/
# (the GPU tests of tests/gpu/loops run every golden of golden/loops/ against
# its fixture). Registered by tests/rewrite/CMakeLists.txt.
set(loops_fx tests/fixtures/loops)
set(loops_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops)
set(csr_row_loop "for (int j = rowptr[row]")
foreach(w 2 4 8 16 32)
  nestor_rewrite_case(loops/spmv_csr.subwarp_${w} INPUT ${loops_fx}/spmv_csr.cu AT "${csr_row_loop}" APPLY subwarp
    PARAMS width=${w} ${loops_inc})
endforeach()
# Launch reshaping (issue 11): the 256-thread launch and the run-time block.
foreach(w 8 16 32)
  nestor_rewrite_case(loops/reshape_spmv.subwarp_${w} INPUT ${loops_fx}/reshape_spmv.cu AT "${csr_row_loop}"
    AFTER "spmv_256(" APPLY subwarp PARAMS width=${w} ${loops_inc})
  nestor_rewrite_case(loops/reshape_spmv.rt_subwarp_${w} INPUT ${loops_fx}/reshape_spmv.cu AT "${csr_row_loop}"
    AFTER "spmv_rt(" APPLY subwarp PARAMS width=${w} ${loops_inc})
endforeach()
nestor_rewrite_case(loops/degree_gather.subwarp_8 INPUT ${loops_fx}/degree_gather.cu AT "for (int e = offsets[v]"
  APPLY subwarp PARAMS width=8 ${loops_inc})
# A loop whose body calls user __device__ helpers (pure by their bodies).
nestor_rewrite_case(loops/helper_sum.subwarp_8 INPUT ${loops_fx}/helper_sum.cu AT "for (int e = offsets[v]"
  APPLY subwarp PARAMS width=8 ${loops_inc})
nestor_rewrite_case(loops/nested_branch.subwarp_8 INPUT ${loops_fx}/nested_branch.cu AT "for (int j = start"
  AFTER "branchy_rows(" APPLY subwarp PARAMS width=8 ${loops_inc})
nestor_rewrite_case(loops/broadcast.subwarp_4 INPUT ${loops_fx}/broadcast.cu AT "for (int j = 0" APPLY subwarp
  PARAMS width=4 ${loops_inc})
# A conditional update (`if (c) ++cnt;`: a + reduction of `c ? 1 : 0`), and
# the two-statement form (`int u = adj[e]; if (label[u] == target) sum += w[e];`,
# the local written as its initialiser).
foreach(w 4 32)
  nestor_rewrite_case(loops/cond_count.subwarp_${w} INPUT ${loops_fx}/cond_count.cu AT "for (int e = row[v]"
    AFTER "void same_label_count(" APPLY subwarp PARAMS width=${w} ${loops_inc})
endforeach()
nestor_rewrite_case(loops/cond_count.weight_subwarp_8 INPUT ${loops_fx}/cond_count.cu AT "for (int e = row[v]"
  AFTER "void label_weight(" APPLY subwarp PARAMS width=8 ${loops_inc})
# Several locals declared in one statement ahead of the loop
# (tests/fixtures/loops/split_decl.cu; CUDA-NP's planner wraps each
# declarator's initialiser on its own).
foreach(entry "window|8|for (int k = start[i]|in_window(" "scaled|4|for (int e = row[v]|scaled_rows("
    "slot|8|for (int e = row[v]|to_slot(" "chained|8|sum += w[b + e]|window_sum(")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 what)
  list(GET parts 1 w)
  list(GET parts 2 at)
  list(GET parts 3 after)
  nestor_rewrite_case(loops/split_decl.${what}_subwarp_${w} INPUT ${loops_fx}/split_decl.cu AT "${at}" AFTER "${after}"
    APPLY subwarp PARAMS width=${w} ${loops_inc})
endforeach()
nestor_rewrite_refusal(loops.subwarp_split_decl_macro INPUT rewriters/cuda_np/tests/split_decl_refusals.cu
  AT "^macro_pair" APPLY subwarp EXPECT "is written inside a macro together with its declaration")

nestor_rewrite_refusal(loops.subwarp_uniform_trip INPUT ${loops_fx}/refusals.cu AT "for (int j = 0"
  AFTER "regular_loop(" APPLY subwarp EXPECT "not irregular")
nestor_rewrite_refusal(loops.subwarp_not_associative INPUT ${loops_fx}/refusals.cu AT "for (int j = lo[threadIdx.x]"
  APPLY subwarp EXPECT "not an associative reduction")
# Conditional updates that are not a reduction of `c ? x : 0` (the matcher's
# refusals, rewriters/loop_common/tests/cond_refusals.cu; cte's cases read it too).
set(cond_fx rewriters/loop_common/tests/cond_refusals.cu)
foreach(entry
    "if_else|the conditional update has an `else` branch"
    "cond_max|the conditional update of 'best' is a max reduction, whose identity is not 0"
    "cond_subtract|the conditional update of 'cnt' subtracts (`-=`)"
    "cond_stores|the condition `(seen[e] = label[adj[e]]) == label[v]` has side effects"
    "two_updates|the conditional branch is not one update of a local scalar accumulator (2 statements)")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 what)
  list(GET parts 1 expect)
  nestor_rewrite_refusal(loops.subwarp_${what} INPUT ${cond_fx} AT "^${what}" APPLY subwarp EXPECT "${expect}")
endforeach()
# The lane read in a helper the loop calls: the slaves would read their own
# (tests/fixtures/loops/callee_identity.cu).
nestor_rewrite_refusal(loops.subwarp_callee_reads_lane INPUT ${loops_fx}/callee_identity.cu AT "for (int k = rowptr[row]"
  AFTER "csr_lane_weighted(" APPLY subwarp PARAMS width=8 EXPECT "the kernel calls 'lane_weight', which reads threadIdx")
