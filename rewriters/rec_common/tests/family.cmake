# Recursion templates (issue 12, irregular-loop-and-recursion-templates.md
# II-C; rewriters/rec_hier, rewriters/rec_flat): the cases written once for
# the family, as functions that each template's rewriters/<folder>/tests/cases.cmake
# calls for itself (issue #25; its goldens go to its own
# tests/golden/recursion/<program>.<rewrite>.cu, each compiled with nvcc;
# tests/gpu/recursion runs them against the originals; docs/testing.md).
#
#   nestor_rec_programs(<out>)                 the programs of examples/trees
#   nestor_rec_template_cases(<id> [NVCC_NORDC])
#       a recursion template: its golden on each program, its refusals;
#       NVCC_NORDC: its output also builds without -rdc (no device launch left)
#   nestor_rec_self_launch_refusal(<name> APPLY <rewrites> EXPECT <text>)
#
# Its inputs are shared ones (examples/trees, tests/fixtures/recursion, which
# tests/unit/RecursionTest.cpp also reads), named from the repository root.
include_guard(GLOBAL)

function(nestor_rec_programs out)
  set(${out} descendants heights tree_levels tree_levels_serial dewey_labels dewey_labels_counted PARENT_SCOPE)
endfunction()

# The site of a program's self-launch: the first launch of the kernel after
# its definition.
function(_nestor_rec_self_launch out program)
  set(kernel ${program})
  if(program STREQUAL tree_levels_serial)
    set(kernel levels_serial)
  endif()
  set(${out} INPUT examples/trees/${program}.cu AT "${kernel}<<<" AFTER "void ${kernel}(" PARENT_SCOPE)
endfunction()

function(nestor_rec_template_cases rw)
  cmake_parse_arguments(ARG "NVCC_NORDC" "" "" ${ARGN})
  string(REPLACE "-" "_" rw_name ${rw})
  set(nordc "")
  if(ARG_NVCC_NORDC)
    set(nordc NVCC_NORDC)
  endif()
  set(trees_inc FLAGS -I${PROJECT_SOURCE_DIR}/examples/trees NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/trees)
  nestor_rec_programs(programs)
  foreach(program ${programs})
    _nestor_rec_self_launch(site ${program})
    nestor_rewrite_case(recursion/${program}.${rw_name} ${site} APPLY ${rw} ${trees_inc} ${nordc})
  endforeach()

  # Refusals, each naming the construct and its line.
  set(rec_fx tests/fixtures/recursion/refusals.cu)
  set(counted_fx tests/fixtures/recursion/counted.cu)
  nestor_rewrite_refusal(recursion.${rw_name}_not_csr INPUT ${rec_fx} AT "binary<<<" APPLY ${rw}
    EXPECT "the recursion is not over CSR children (line 4)")
  nestor_rewrite_refusal(recursion.${rw_name}_carried_state INPUT ${rec_fx} AT "carried<<<" APPLY ${rw}
    EXPECT "writes 'budget', declared outside the per-child part: state carried between siblings (line 12)")
  nestor_rewrite_refusal(recursion.${rw_name}_needs_result INPUT ${rec_fx} AT "needs_result<<<1, 32>>>" APPLY ${rw}
    EXPECT "needs the child's results before its grid has finished")
  nestor_rewrite_refusal(recursion.${rw_name}_moves_slot INPUT ${rec_fx} AT "moves_slot<<<" APPLY ${rw}
    EXPECT "a pre-order statement writes the slot 's' (line 118)")
  nestor_rewrite_refusal(recursion.${rw_name}_shared INPUT ${rec_fx} AT "with_shared<<<" APPLY ${rw}
    EXPECT "__shared__ 'seen'")
  nestor_rewrite_refusal(recursion.${rw_name}_barrier INPUT ${rec_fx} AT "with_barrier<<<" APPLY ${rw}
    EXPECT "calls __syncthreads (line 38)")
  nestor_rewrite_refusal(recursion.${rw_name}_callee_identity INPUT tests/fixtures/recursion/callee_identity.cu
    AT "level_walk<<<(off" APPLY ${rw} EXPECT "a pre-order statement calls 'record_level', which reads threadIdx")
  nestor_rewrite_refusal(recursion.${rw_name}_unparsed INPUT rewriters/dp_common/tests/unparsed_child.cu
    AT "visit_tree<<<1, 32>>>(off" APPLY ${rw} EXPECT "visit_tree has code clang could not parse (line 25)")
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
endfunction()

# A refusal at the self-launch of each program (with examples/trees on the
# include path): rewrite_refusal.recursion.<program>_<name>.
function(nestor_rec_self_launch_refusal name)
  cmake_parse_arguments(ARG "" "APPLY;EXPECT" "" ${ARGN})
  nestor_rec_programs(programs)
  foreach(program ${programs})
    _nestor_rec_self_launch(site ${program})
    nestor_rewrite_refusal(recursion.${program}_${name} ${site} APPLY ${ARG_APPLY}
      FLAGS -I${PROJECT_SOURCE_DIR}/examples/trees EXPECT "${ARG_EXPECT}")
  endforeach()
endfunction()
