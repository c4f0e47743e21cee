# CUDA-NP (np, issue 4) on the loop fixtures of tests/fixtures/loops/ (shared
# with the GPU tests of tests/gpu/loops, which run every golden of
# golden/loops/ against its fixture). Registered by tests/rewrite/CMakeLists.txt.
set(loops_fx tests/fixtures/loops)
set(loops_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops)
set(tmv_pragma "#pragma np parallel for reduction(+:sum)")

# TMV (cuda-np.md Figure 2), at the pragma: every slave count that fits a
# 64-thread block, both mappings.
foreach(type inter intra)
  foreach(s 2 4 8 16)
    nestor_rewrite_case(loops/tmv.np_${type}_${s} INPUT ${loops_fx}/tmv.cu AT "${tmv_pragma}" APPLY np
      PARAMS slaves=${s} np_type=${type} ${loops_inc})
  endforeach()
endforeach()
# Defaults from nothing (at the loop): inter-warp, 4 slaves.
nestor_rewrite_case(loops/tmv.np_default INPUT ${loops_fx}/tmv.cu AT "for (int i = 0" APPLY np ${loops_inc})

# `if (row >= n) return;` with an unannotated loop (the pragma is inferred):
# inter-warp predicates the return, intra-warp keeps it; 32 slaves (block 32).
foreach(cfg inter_4 inter_8 intra_4 intra_32)
  string(REPLACE "_" ";" parts ${cfg})
  list(GET parts 0 type)
  list(GET parts 1 s)
  nestor_rewrite_case(loops/early_return.np_${cfg} INPUT ${loops_fx}/early_return.cu AT "for (int j = 0" APPLY np
    PARAMS slaves=${s} np_type=${type} ${loops_inc})
endforeach()

# Figure 5-style kernel: three pragma loops, Grad[150] partitioned into registers.
nestor_rewrite_case(loops/local_array.np_inter_4 INPUT ${loops_fx}/local_array.cu
  AT "#pragma np parallel for" AFTER "ellipse(" APPLY np PARAMS slaves=4 np_type=inter ${loops_inc})
nestor_rewrite_case(loops/local_array.np_intra_8 INPUT ${loops_fx}/local_array.cu
  AT "#pragma np parallel for" AFTER "ellipse(" APPLY np PARAMS slaves=8 np_type=intra ${loops_inc})

# Arrays over the shared-memory budget and read outside the parallel loops:
# global memory, from a pool each launch site passes in (grown on demand).
nestor_rewrite_case(loops/local_array_global.np_inter_4 INPUT ${loops_fx}/local_array_global.cu
  AT "for (int n = 0" AFTER "ellipse_global(" APPLY np PARAMS slaves=4 np_type=inter ${loops_inc})
nestor_rewrite_case(loops/local_array_global.np_intra_8 INPUT ${loops_fx}/local_array_global.cu
  AT "for (int n = 0" AFTER "ellipse_global(" APPLY np PARAMS slaves=8 np_type=intra ${loops_inc})

# lud_perimeter (Figure 3): shared-memory tiles, loop variable declared outside.
nestor_rewrite_case(loops/lud_perimeter.np_inter_8 INPUT ${loops_fx}/lud_perimeter.cu
  AT "#pragma np parallel for" AFTER "lud_perimeter(" APPLY np PARAMS slaves=8 np_type=inter ${loops_inc})
nestor_rewrite_case(loops/lud_perimeter.np_intra_4 INPUT ${loops_fx}/lud_perimeter.cu
  AT "#pragma np parallel for" AFTER "lud_perimeter(" APPLY np PARAMS slaves=4 np_type=intra ${loops_inc})

# Multi-dimensional block (16, 8): linearised masters, original ids after the loop.
set(multidim_pragma "#pragma np parallel for reduction(+:acc)")
nestor_rewrite_case(loops/multidim.np_inter_4 INPUT ${loops_fx}/multidim.cu AT "${multidim_pragma}" APPLY np
  PARAMS slaves=4 np_type=inter ${loops_inc})
nestor_rewrite_case(loops/multidim.np_intra_8 INPUT ${loops_fx}/multidim.cu AT "${multidim_pragma}" APPLY np
  PARAMS slaves=8 np_type=intra ${loops_inc})

# __launch_bounds__(256), 64-thread launch: 4 slaves fit; with 8 the launch
# is reshaped (32 masters per block, twice the blocks) to stay within 256.
foreach(cfg inter_4 intra_2 inter_8 intra_16)
  string(REPLACE "_" ";" parts ${cfg})
  list(GET parts 0 type)
  list(GET parts 1 s)
  nestor_rewrite_case(loops/launch_bounds.np_${cfg} INPUT ${loops_fx}/launch_bounds.cu
    AT "#pragma np parallel for reduction(+:s)" APPLY np PARAMS slaves=${s} np_type=${type} ${loops_inc})
endforeach()

# Launch reshaping (issue 11): a 256-thread CSR SpMV launch (constant block)
# and one whose block is chosen at run time (nestor::np::reshape_block).
foreach(cfg inter_8 intra_16 intra_32)
  string(REPLACE "_" ";" parts ${cfg})
  list(GET parts 0 type)
  list(GET parts 1 s)
  nestor_rewrite_case(loops/reshape_spmv.np_${cfg} INPUT ${loops_fx}/reshape_spmv.cu
    AT "for (int j = rowptr[row]" AFTER "spmv_256(" APPLY np PARAMS slaves=${s} np_type=${type} ${loops_inc})
endforeach()
nestor_rewrite_case(loops/reshape_spmv.rt_np_intra_16 INPUT ${loops_fx}/reshape_spmv.cu
  AT "for (int j = rowptr[row]" AFTER "spmv_rt(" APPLY np PARAMS slaves=16 np_type=intra ${loops_inc})
# TMV (64-thread blocks) with 32 slaves: 2048 threads, reshaped to 32 masters.
foreach(type inter intra)
  nestor_rewrite_case(loops/tmv.np_${type}_32 INPUT ${loops_fx}/tmv.cu AT "${tmv_pragma}" APPLY np
    PARAMS slaves=32 np_type=${type} ${loops_inc})
endforeach()
# Where the thread identity would not survive reshaping: refused, with the
# construct; each case names the kernel whose loop it targets.
set(reshape_fx ${loops_fx}/reshape_refusals.cu)
set(each_j "for (int j = 0")
nestor_rewrite_refusal(loops.reshape_shared INPUT ${reshape_fx} AT "${each_j}" AFTER "staged(" APPLY np PARAMS slaves=8
  EXPECT "'tile' is __shared__ memory sized for the original block (line 7)")
nestor_rewrite_refusal(loops.reshape_block_index INPUT ${reshape_fx} AT "${each_j}" AFTER "block_sum(" APPLY np
  PARAMS slaves=8 EXPECT "blockIdx.x is used other than in blockIdx.x * blockDim.x + threadIdx.x (line 19)")
nestor_rewrite_refusal(loops.reshape_grid_dim INPUT ${reshape_fx} AT "${each_j}" AFTER "grid_read(" APPLY np
  PARAMS slaves=8 np_type=intra EXPECT "gridDim.x is read (line 26)")
nestor_rewrite_refusal(loops.reshape_2d_block INPUT ${reshape_fx} AT "${each_j}" AFTER "two_d(" APPLY np PARAMS slaves=8
  EXPECT "the block (32, 8, 1) is not one-dimensional")
# A global dim3 that is not const: any code may write it before the launch.
nestor_rewrite_refusal(loops.reshape_global_dim3 INPUT ${reshape_fx} AT "${each_j}" AFTER "global_dim3(" APPLY np
  PARAMS slaves=8 np_type=intra EXPECT "('gTiles') is not a compile-time constant: it is not a one-dimensional integer block")
nestor_rewrite_refusal(loops.reshape_runtime_inter INPUT ${reshape_fx} AT "${each_j}" AFTER "runtime_inter(" APPLY np
  PARAMS slaves=8 np_type=inter EXPECT "inter-warp NP needs the block at compile time")
nestor_rewrite_refusal(loops.reshape_runtime_side_effect INPUT ${reshape_fx} AT "${each_j}" AFTER "runtime_side_effect("
  APPLY np PARAMS slaves=8 np_type=intra EXPECT "the launch configuration has side effects")
nestor_rewrite_refusal(loops.launch_block_in_macro_body INPUT ${reshape_fx} AT "${each_j}" AFTER "macro_block(" APPLY np
  PARAMS slaves=2 np_type=intra EXPECT "is written inside a macro's body")
nestor_rewrite_refusal(loops.reshape_multidim_16 INPUT ${loops_fx}/multidim.cu AT "${multidim_pragma}" APPLY np
  PARAMS slaves=16 EXPECT "is not one-dimensional")

# Scan, last-iteration live-out, and a local array in shared memory.
set(scan_pragma "#pragma np parallel for scan(+:acc)")
nestor_rewrite_case(loops/scan.np_inter_4 INPUT ${loops_fx}/scan.cu AT "${scan_pragma}" APPLY np
  PARAMS slaves=4 np_type=inter ${loops_inc})
nestor_rewrite_case(loops/scan.np_intra_8 INPUT ${loops_fx}/scan.cu AT "${scan_pragma}" APPLY np
  PARAMS slaves=8 np_type=intra ${loops_inc})

# Exclusive-order scans (use before update): a pragma'd one through
# __restrict__ pointers and an inferred one (the target, after `int count = 0`;
# the pragma'd loop is transformed with it).
nestor_rewrite_case(loops/scan_exclusive.np_inter_4 INPUT ${loops_fx}/scan_exclusive.cu
  AT "${each_j}" AFTER "int count = 0" APPLY np PARAMS slaves=4 np_type=inter ${loops_inc})
nestor_rewrite_case(loops/scan_exclusive.np_intra_8 INPUT ${loops_fx}/scan_exclusive.cu
  AT "${each_j}" AFTER "int count = 0" APPLY np PARAMS slaves=8 np_type=intra ${loops_inc})

# CSR SpMV and the degree gather (CTE and sub-warp: rewriters/cte, rewriters/subwarp).
nestor_rewrite_case(loops/spmv_csr.np_intra_8 INPUT ${loops_fx}/spmv_csr.cu AT "for (int j = rowptr[row]" APPLY np
  PARAMS slaves=8 np_type=intra ${loops_inc})
nestor_rewrite_case(loops/degree_gather.np_inter_4 INPUT ${loops_fx}/degree_gather.cu AT "for (int e = offsets[v]"
  APPLY np PARAMS slaves=4 np_type=inter ${loops_inc})

# Parallel loops nested in branches (`if (row < rows) {...}`, if/else with a
# loop in each branch) and in a sequential time-step loop: inter-warp NP
# predicates the branches, intra-warp NP lets each group branch.
nestor_rewrite_case(loops/nested_branch.np_inter_4 INPUT ${loops_fx}/nested_branch.cu
  AT "for (int j = start" AFTER "branchy_rows(" APPLY np PARAMS slaves=4 np_type=inter ${loops_inc})
nestor_rewrite_case(loops/nested_branch.np_intra_8 INPUT ${loops_fx}/nested_branch.cu
  AT "for (int j = start" AFTER "branchy_rows(" APPLY np PARAMS slaves=8 np_type=intra ${loops_inc})
nestor_rewrite_case(loops/nested_loop.np_inter_4 INPUT ${loops_fx}/nested_loop.cu AT "${each_j}" APPLY np
  PARAMS slaves=4 np_type=inter ${loops_inc})
nestor_rewrite_case(loops/nested_loop.np_intra_8 INPUT ${loops_fx}/nested_loop.cu AT "${each_j}" APPLY np
  PARAMS slaves=8 np_type=intra ${loops_inc})

# Several locals declared in one statement (tests/fixtures/loops/split_decl.cu):
# each declarator's initialiser is wrapped on its own (two scalars from
# memory; uniform, memory and the accumulator together; a pointer
# declarator; const declarators, the second from the first, both broadcast),
# and a scan's loop-body declaration becomes one declaration per declarator.
# np_inter4_intra8(<fixture> <entry>...): for each "what|AT|AFTER" entry, the
# cases loops/<fixture>.<what>_np_inter_4 and _np_intra_8 on
# tests/fixtures/loops/<fixture>.cu.
function(np_inter4_intra8 fixture)
  foreach(entry ${ARGN})
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 what)
    list(GET parts 1 at)
    list(GET parts 2 after)
    foreach(cfg inter_4 intra_8)
      string(REPLACE "_" ";" cp ${cfg})
      list(GET cp 0 type)
      list(GET cp 1 s)
      nestor_rewrite_case(loops/${fixture}.${what}_np_${cfg} INPUT ${loops_fx}/${fixture}.cu AT "${at}" AFTER "${after}"
        APPLY np PARAMS slaves=${s} np_type=${type} ${loops_inc})
    endforeach()
  endforeach()
endfunction()
np_inter4_intra8(split_decl "window|for (int k = start[i]|in_window(" "scaled|for (int e = row[v]|scaled_rows("
  "slot|for (int e = row[v]|to_slot(" "chained|sum += w[b + e]|window_sum("
  "prefix|#pragma np parallel for scan(+:acc)|weighted_prefix(")
# The forms still refused (rewriters/cuda_np/tests/split_decl_refusals.cu).
set(split_refusals_in rewriters/cuda_np/tests/split_decl_refusals.cu)
nestor_rewrite_refusal(loops.np_split_decl_macro INPUT ${split_refusals_in} AT "^macro_pair" APPLY np
  EXPECT "split_decl_refusals.cu:13:3: the initialiser of 'a' is written inside a macro together with its declaration")
nestor_rewrite_refusal(loops.np_split_decl_reference INPUT ${split_refusals_in} AT "^with_reference" APPLY np
  EXPECT "split_decl_refusals.cu:24:3: reference 'b'")
nestor_rewrite_refusal(loops.np_split_decl_loop_header INPUT ${split_refusals_in} AT "^header_pair" APPLY np
  EXPECT "the loop is not a canonical counted loop")

# Whole structs copied into locals (tests/fixtures/loops/struct_copy.cu): a
# const struct before the loop, broadcast from the master (a gathered one
# inside the loop stays each slave's own); a float4 the master changes before
# the loop; a struct read after the loop too.
np_inter4_intra8(struct_copy "force|for (int k = start[i]|neighbour_force(" "drift|for (int k = start[i]|drift_sum("
  "bounds|for (int k = b.lo|bounded_mass(")
# The structs still refused (rewriters/cuda_np/tests/struct_copy_refusals.cu).
set(struct_refusals_in rewriters/cuda_np/tests/struct_copy_refusals.cu)
nestor_rewrite_refusal(loops.np_struct_copy_user_copy INPUT ${struct_refusals_in} AT "^counted_copy" APPLY np
  EXPECT "struct_copy_refusals.cu:19:3: 'c' is a struct that is not trivially copyable")
nestor_rewrite_refusal(loops.np_struct_copy_too_wide INPUT ${struct_refusals_in} AT "^wide_copy" APPLY np
  EXPECT "struct_copy_refusals.cu:35:3: 'r' is a struct of 48 bytes, over the 32 bytes")
nestor_rewrite_refusal(loops.np_struct_copy_union INPUT ${struct_refusals_in} AT "^union_copy" APPLY np
  EXPECT "struct_copy_refusals.cu:51:3: 'b' is a union")

# Structs of bit-fields and of an over-aligned record, moved through their
# object representation, and structs initialised by brace lists (one field;
# a type declared in the kernel) (tests/fixtures/loops/struct_layouts.cu).
np_inter4_intra8(struct_layouts "packed|for (int k = start[i]|packed_weight("
  "aligned|for (int k = start[i]|aligned_centre(" "single|for (int k = start[i]|single_field("
  "span|for (int k = start[i]|local_span(")

# Template kernels (tests/fixtures/loops/template_kernels.cu): the pattern is
# rewritten once for every instantiation, and every launch of one is reshaped.
np_inter4_intra8(template_kernels "rows|for (int k = start[i]|scaled_rows("
  "window|for (int k = -RADIUS|window_mean(")
nestor_rewrite_refusal(loops.np_template_dependent_accumulator INPUT ${loops_fx}/template_kernels.cu
  AT "for (int k = start[i]" AFTER "typed_rows(" APPLY np
  EXPECT "template_kernels.cu:43:49: loop-carried dependence: 's' has a type that depends on a template parameter ('Real')")

# Refusals, each with its reason, at the loop of the kernel named by AFTER.
set(refusals_fx ${loops_fx}/refusals.cu)
nestor_rewrite_refusal(loops.launched_elsewhere INPUT ${refusals_fx} AT "${each_j}"
  AFTER "launched_elsewhere(float *out, const float *a, int m) {" APPLY np EXPECT "launched from another translation unit")
nestor_rewrite_refusal(loops.block_too_big INPUT ${refusals_fx} AT "${each_j}" AFTER "big_block(" APPLY np
  PARAMS slaves=4 EXPECT "2048 > 1024")
nestor_rewrite_refusal(loops.shuffle_in_kernel INPUT ${refusals_fx} AT "${each_j}" AFTER "uses_shuffle(" APPLY np
  PARAMS slaves=2 EXPECT "__shfl_down_sync")
# An argmin (value and index written together): refused as carried, saying so.
nestor_rewrite_refusal(loops.np_argmin_pair INPUT ${refusals_fx} AT "${each_j}" AFTER "nearest_centre(" APPLY np
  EXPECT "'best' and 'idx' are written together under `d < best` (an argmin or argmax)")

# Master-computed live-ins (read_from_master), a memory-reading early return.
foreach(cfg inter_4 intra_8)
  string(REPLACE "_" ";" parts ${cfg})
  list(GET parts 0 type)
  list(GET parts 1 s)
  nestor_rewrite_case(loops/broadcast.np_${cfg} INPUT ${loops_fx}/broadcast.cu AT "${each_j}" APPLY np
    PARAMS slaves=${s} np_type=${type} ${loops_inc})
endforeach()
nestor_rewrite_refusal(loops.np_loop_in_while INPUT ${refusals_fx} AT "${each_j}" AFTER "nested_in_while(" APPLY np
  EXPECT "the loop is nested in a while loop")
# A sequential loop around a parallel one must run the same iterations in the
# whole block (inter-warp) or the whole group (intra-warp).
nestor_rewrite_refusal(loops.np_outer_loop_per_thread_inter INPUT ${refusals_fx} AT "${each_j}" AFTER "per_thread_steps("
  APPLY np PARAMS np_type=inter EXPECT "use np_type(intra)")
nestor_rewrite_refusal(loops.np_outer_loop_per_thread_intra INPUT ${refusals_fx} AT "${each_j}" AFTER "per_thread_steps("
  APPLY np PARAMS np_type=intra EXPECT "reads memory or values the master alone computes")
# Exclusive-order scan whose value is read after a store that may alias it.
nestor_rewrite_refusal(loops.np_exclusive_scan_may_alias INPUT ${refusals_fx} AT "${each_j}"
  AFTER "aliasing_exclusive_scan(" APPLY np EXPECT "read it into a local first")
# An array bound for global memory needs the launches on the default stream.
nestor_rewrite_refusal(loops.np_global_array_named_stream INPUT ${refusals_fx} AT "${each_j}"
  AFTER "big_array_on_stream(" APPLY np EXPECT "names a stream")
nestor_rewrite_refusal(loops.np_global_array_kernel_address INPUT ${refusals_fx} AT "${each_j}"
  AFTER "big_array_address_taken(" APPLY np EXPECT "used other than by a <<<>>> launch")
nestor_rewrite_refusal(loops.np_return_in_branch_inter INPUT ${refusals_fx} AT "${each_j}" AFTER "return_in_branch("
  APPLY np PARAMS np_type=inter EXPECT "cannot return from inside a statement that encloses a parallel loop")

# Launch configurations written with casts (rewriters/cuda_np/tests/
# launch_casts.cu): the enlarged block and the reshaped grid replace the
# whole written argument; the nvcc check is the test (a golden that keeps
# `int(...)` around the new dim3 does not compile).
set(casts_in rewriters/cuda_np/tests/launch_casts.cu)
nestor_rewrite_case(edits/launch_casts.np_inter_4 INPUT ${casts_in} AT "for (int c = 0" APPLY np
  PARAMS slaves=4 np_type=inter)
nestor_rewrite_case(edits/launch_casts.np_intra_8 INPUT ${casts_in} AT "for (int c = 0" APPLY np
  PARAMS slaves=8 np_type=intra)
nestor_rewrite_case(edits/launch_casts.rt_np_intra_16 INPUT ${casts_in} AT "for (int c = 1" APPLY np
  PARAMS slaves=16 np_type=intra)
# The same launches in a runnable program (tests/fixtures/loops/cast_launch.cu):
# its goldens run on the GPU against the original (tests/gpu/loops).
foreach(cfg np_inter_4 np_intra_8)
  string(REGEX MATCH "[0-9]+$" s ${cfg})
  string(REGEX MATCH "inter|intra" type ${cfg})
  nestor_rewrite_case(loops/cast_launch.${cfg} INPUT ${loops_fx}/cast_launch.cu AT "for (int c = 0" APPLY np
    PARAMS slaves=${s} np_type=${type} ${loops_inc})
endforeach()
nestor_rewrite_case(loops/cast_launch.rt_np_intra_16 INPUT ${loops_fx}/cast_launch.cu AT "for (int c = 1" APPLY np
  PARAMS slaves=16 np_type=intra ${loops_inc})

# Launches whose block a build can change (`-DROWMAX_BLOCK=256`): the
# enlarged block, the reshaped grid and inter-warp's np::inter<M, S> hold the
# value the macro had when analysed (128), so the launch is wrapped in
# nestor::np::block_as_analysed<((MACRO) == 128)>. Built with another block,
# the rewritten launch must not compile (without the guard it would launch
# 256-thread blocks for a grid of 512-thread blocks and leave half the rows
# unwritten): rewrite_nvcc_other_block.<fixture>.np_<cfg>, which builds the
# golden with `-D${other}`. Each cfg is <intra|inter>_<slaves>.
function(np_build_time_block_cases fixture at other)
  foreach(cfg ${ARGN})
    string(REPLACE "_" ";" parts ${cfg})
    list(GET parts 0 type)
    list(GET parts 1 s)
    nestor_rewrite_case(loops/${fixture}.np_${cfg} INPUT ${loops_fx}/${fixture}.cu AT "${at}" APPLY np
      PARAMS slaves=${s} np_type=${type} ${loops_inc})
    if(NESTOR_NVCC)
      add_test(NAME rewrite_nvcc_other_block.${fixture}.np_${cfg}
        COMMAND ${NESTOR_NVCC} -arch=sm_90 -std=c++17 -D${other} -I${PROJECT_SOURCE_DIR}/runtime/include
                -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops
                -c ${CMAKE_CURRENT_LIST_DIR}/golden/loops/${fixture}.np_${cfg}.cu
                -o ${CMAKE_CURRENT_BINARY_DIR}/${fixture}.np_${cfg}.other.o)
      set_tests_properties(rewrite_nvcc_other_block.${fixture}.np_${cfg} PROPERTIES LABELS "rewrite;nvcc"
        DEPENDS rewrite_golden.loops/${fixture}.np_${cfg}
        PASS_REGULAR_EXPRESSION "this launch's block size is not the one it was rewritten for")
    endif()
  endforeach()
endfunction()

# `#ifndef ROWMAX_BLOCK` in the launch itself (tests/fixtures/loops/
# tunable_block.cu): intra-warp 2 (block 256), inter-warp 4 (block (128, 4)),
# intra-warp 16 (reshaped: 2x the blocks).
np_build_time_block_cases(tunable_block "for (int j = 0" ROWMAX_BLOCK=256 intra_2 inter_4 intra_16)

# Blocks declared at file scope (tests/fixtures/loops/global_block.cu): a
# const dim3 spelled with a build-time macro is guarded like the macro itself
# (block_as_analysed<((COLSUM_BLOCK) == 128)>), and a plain global the
# program writes at run time is no constant block: an integer one is
# enlarged from the value it has then (nestor::np::reshape_block), which
# tests/gpu/loops runs with blocks of 64, 128 and 256 (a dim3 one is refused:
# loops.reshape_global_dim3).
np_build_time_block_cases(global_block "for (int r = 0" COLSUM_BLOCK=256 intra_2 inter_4)
nestor_rewrite_case(loops/global_block.rt_np_intra_4 INPUT ${loops_fx}/global_block.cu AT "for (int c = 0" APPLY np
  PARAMS slaves=4 np_type=intra ${loops_inc})
# The thread identity read in a function the kernel calls (a pure helper, a
# header's, one whose body is elsewhere, a warp collective): the enlarged
# block would reach it unrenamed. tests/fixtures/loops/callee_identity.cu.
set(callee_fx ${loops_fx}/callee_identity.cu)
set(dense_j "for (int j = 0")
nestor_rewrite_refusal(loops.np_callee_reads_block INPUT ${callee_fx} AT "${dense_j}" AFTER "row_norms_helper_row("
  APPLY np PARAMS slaves=4 np_type=intra EXPECT "the kernel calls 'row_of_thread', which reads blockDim (line 9)")
nestor_rewrite_refusal(loops.np_callee_in_header INPUT ${callee_fx} AT "${dense_j}" AFTER "row_norms_header_row("
  APPLY np PARAMS slaves=4 np_type=inter EXPECT "'flat_thread_id', which reads blockDim (callee_identity.cuh:5)")
nestor_rewrite_refusal(loops.np_callee_not_visible INPUT ${callee_fx} AT "${dense_j}" AFTER "row_norms_scheduled("
  APPLY np PARAMS slaves=4 np_type=intra EXPECT "the kernel calls 'row_from_schedule', whose body Nestor cannot see")
nestor_rewrite_refusal(loops.np_callee_warp_collective INPUT ${callee_fx} AT "${dense_j}" AFTER "row_norms_warp_total("
  APPLY np PARAMS slaves=4 np_type=intra EXPECT "'warp_total', which calls __shfl_down_sync (line 12)")
# A call that names no body (a function pointer, a virtual member) may run
# one that reads the thread; a virtual call on a final class names its body.
# tests/fixtures/loops/indirect_callees.cu.
set(indirect_fx ${loops_fx}/indirect_callees.cu)
nestor_rewrite_refusal(loops.np_callee_pointer INPUT ${indirect_fx} AT "${dense_j}" AFTER "row_norms_pointer("
  APPLY np PARAMS slaves=4 np_type=intra
  EXPECT "the kernel calls through 'rowOf', and Nestor cannot see which function runs there")
nestor_rewrite_refusal(loops.np_callee_virtual INPUT ${indirect_fx} AT "${dense_j}" AFTER "row_norms_virtual("
  APPLY np PARAMS slaves=4 np_type=inter EXPECT "the kernel calls through 'row', and Nestor cannot see")
nestor_rewrite_listed(loops.np_callee_final_offered INPUT ${indirect_fx} AT "${dense_j}" AFTER "row_norms_final("
  EXPECT "np: #")
# Code clang could not parse outside the loop (a shift the build defines, in
# the kernel or in a helper): it may read the thread's identity, which CUDA-NP
# renames (tests/soundness/cases/unparsed.cu).
nestor_rewrite_refusal(loops.np_unparsed_outside_loop INPUT tests/soundness/cases/unparsed.cu AT "for (int i = 0"
  AFTER "row_from_the_build(" APPLY np PARAMS slaves=4 np_type=intra
  EXPECT "the kernel has code clang could not parse outside the loop")
nestor_rewrite_refusal(loops.np_unparsed_helper_outside_loop INPUT tests/soundness/cases/unparsed.cu
  AT "for (int i = 0" AFTER "row_from_unparsed_helper(" APPLY np PARAMS slaves=4 np_type=intra
  EXPECT "the kernel has code clang could not parse outside the loop (in its body or a function it calls)")
