# Load-balancing templates (issue 12, irregular-loop-and-recursion-templates.md
# II-B; docs/rewrites-templates.md): the cases written once for the family, as
# functions that each template's rewriters/<folder>/tests/cases.cmake calls for
# itself (issue #25; its goldens go to its own tests/golden/, docs/testing.md).
# Every golden compiles with nvcc (rewrite_nvcc.*); the GPU tests run them
# against their originals (tests/gpu/templates: golden/templates/; tests/gpu:
# golden/graph/).
#
#   nestor_lb_loop_template_cases(<id> [NVCC_NORDC])
#       a loop template (dual-queue, dbuf-shared, dbuf-global, dpar-opt);
#       NVCC_NORDC: its output also builds without -rdc
#   nestor_lb_launch_template_cases(<id>)
#       a launch template (dual-queue-launch, ..., dpar-opt-launch)
#   nestor_lb_launch_refusal_cases(<id> [HOLDS_IN_BLOCK] [REMOVES_DEVICE_LAUNCH])
#       a launch template's refusals on launch_refusals.cu; the options are
#       the template's LaunchTemplateRewrite::holdsInBlock() and
#       removesDeviceLaunch() (rewriters/lb_common/LaunchTemplates.h)
#   nestor_lb_useful_threads_cases(<id>)
#   nestor_lb_launch_title_listed(<id> <title>)
#   nestor_lb_graph_launch_refusal(<name> APPLY <rewrites> EXPECT <text>)
#
# A new loop template's tests are rewriters/<folder>/tests/cases.cmake with
#   include(${PROJECT_SOURCE_DIR}/rewriters/lb_common/tests/family.cmake)
#   nestor_lb_loop_template_cases(<id>)
# (and the cases of its own), and its goldens: NESTOR_UPDATE_GOLDEN=1 writes
# them (docs/testing.md).
#
# The inputs of this folder (csr_locals.cu, refusals.cu, foreach_refusals.cu,
# launch_refusals.cu, useful_threads.cu; cursor markers) stay here, for the
# whole family (merge-path and the recursion templates read two of them). A
# case's INPUT is resolved against the calling cases file's folder, then the
# repository root, never as an absolute path (tests/rewrite/CMakeLists.txt):
# the functions name them from the root (`fx`, this folder), the templates'
# cases files as rewriters/lb_common/tests/<input>.
include_guard(GLOBAL)
# The launch templates rewrite a device launch, as the DP rewrites do: some of
# that family's cases are theirs too.
include(${PROJECT_SOURCE_DIR}/rewriters/dp_common/tests/family.cmake)

function(nestor_lb_loop_template_cases rw)
  cmake_parse_arguments(ARG "NVCC_NORDC" "" "" ${ARGN})
  string(REPLACE "-" "_" rw_name ${rw})
  file(RELATIVE_PATH fx "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
  set(tmpl_loops_fx tests/fixtures/loops)
  set(tmpl_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops)
  set(csr_row_loop "for (int j = rowptr[row]")
  set(csr_vertex_loop "for (int e = offsets[v]")
  # NVCC_NORDC (dpar-opt: the planner builds variants with the project's own
  # command): the device launch is compiled out and each block processes its
  # buffer itself; checked on spmv_csr at lb_threshold 64 and on degree_gather.
  set(nordc "")
  if(ARG_NVCC_NORDC)
    set(nordc NVCC_NORDC)
  endif()
  foreach(thr 32 64 128 256)
    set(thr_nordc "")
    if(thr EQUAL 64)
      set(thr_nordc ${nordc})
    endif()
    nestor_rewrite_case(templates/spmv_csr.${rw_name}_${thr} INPUT ${tmpl_loops_fx}/spmv_csr.cu AT "${csr_row_loop}"
      APPLY ${rw} PARAMS lb_threshold=${thr} ${tmpl_inc} ${thr_nordc})
  endforeach()
  nestor_rewrite_case(templates/degree_gather.${rw_name}_32 INPUT ${tmpl_loops_fx}/degree_gather.cu
    AT "${csr_vertex_loop}" APPLY ${rw} PARAMS lb_threshold=32 ${tmpl_inc} ${nordc})
  # The loop as an `if`'s branch without braces: the hook's statements are
  # braced (tests/gpu/templates runs it with inactive rows).
  nestor_rewrite_case(templates/guarded_rows.${rw_name}_32 INPUT ${tmpl_loops_fx}/guarded_rows.cu
    AT "for (int j = rowptr[row]" APPLY ${rw} PARAMS lb_threshold=32 ${tmpl_inc} ${nordc})
  # The mapped expression calls user __device__ helpers (pure by their bodies).
  nestor_rewrite_case(templates/helper_sum.${rw_name}_32 INPUT ${tmpl_loops_fx}/helper_sum.cu AT "${csr_vertex_loop}"
    APPLY ${rw} PARAMS lb_threshold=32 ${tmpl_inc})

  # CSR bounds held in locals (issue #21, nestor/DefUse.h): `int start = ptr[tid];
  # int end = ptr[tid + 1];` is the CSR pair; a bound written again, or whose
  # address is taken, is not seen through.
  nestor_rewrite_case(templates/csr_locals.${rw_name}_64 INPUT ${fx}/csr_locals.cu AT "^locals" APPLY ${rw})
  foreach(what written_again address_taken)
    nestor_rewrite_refusal(templates.${rw_name}_csr_local_${what} INPUT ${fx}/csr_locals.cu AT "^${what}" APPLY ${rw}
      EXPECT "the bounds `start` .. `end` are not a CSR-like pair")
  endforeach()

  # Refusals, each naming the construct and its line.
  set(refusals_fx ${fx}/refusals.cu)
  nestor_rewrite_refusal(templates.${rw_name}_not_csr INPUT ${refusals_fx} AT "^not_csr" APPLY ${rw}
    EXPECT "are not a CSR-like pair")
  nestor_rewrite_refusal(templates.${rw_name}_carried_state INPUT ${refusals_fx} AT "^nested" APPLY ${rw}
    EXPECT "nested in the loop at line 18")
  nestor_rewrite_refusal(templates.${rw_name}_shared INPUT ${refusals_fx} AT "^shared" APPLY ${rw}
    EXPECT "__shared__ 'tile' (line 28)")
  nestor_rewrite_refusal(templates.${rw_name}_store_before_loop INPUT ${refusals_fx} AT "^store_before_loop" APPLY ${rw}
    EXPECT "statement at line 42 writes memory before the loop")
  nestor_rewrite_refusal(templates.${rw_name}_reads_local INPUT ${refusals_fx} AT "^reads_local" APPLY ${rw}
    EXPECT "reads the thread's local 'scale'")

  # Every offer applies (issue #21): a kernel directly after the #include
  # lines (tests/fixtures/edits, which rewrite_all_offers also reads).
  nestor_rewrite_case(edits/loop_after_includes.${rw_name} INPUT tests/fixtures/edits/loop_after_includes.cu
    AT "${csr_row_loop}" APPLY ${rw})

  # ---- case (a) on the graph programs' flat (no-CDP) kernels of bench/graph/flat:
  # neighbour_sum's loop is a + reduction through a user __device__ helper, bfs's
  # a loop of independent iterations with stores (the for-each form: the block
  # pass runs the body, the owner's replay skips the loop). The goldens are graph
  # goldens, so tests/gpu checks each against examples/graph/<program>.cu on
  # every graph input and bench/graph times them next to flat and CDP.
  # (sssp's loop, atomicMin and reads the thread's dist_v, is refused:
  # rewriters/dbuf_global/tests/cases.cmake.)
  set(graph_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/graph)
  foreach(entry "neighbour_sum|for (unsigned e = offsets[v]" "bfs|for (unsigned e = offsets[gid]")
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 program)
    list(GET parts 1 loop)
    foreach(thr 32 64 128 256)
      nestor_rewrite_case(graph/${program}.flat_${rw_name}_${thr} INPUT bench/graph/flat/${program}.cu AT "${loop}"
        APPLY ${rw} PARAMS lb_threshold=${thr} ${graph_inc})
    endforeach()
  endforeach()

  # The owner's replay runs after the delayed iterations' stores: refused when
  # the code outside the loop reads what the loop stores and has effects of its
  # own (offered when nothing outside the loop has an effect, bfs's shape, or
  # the loop stores elsewhere: rewriters/dbuf_shared/tests/cases.cmake).
  nestor_rewrite_refusal(templates.foreach_replay_diverges_${rw_name} INPUT ${fx}/foreach_refusals.cu
    AT "^replay_diverges" APPLY ${rw}
    EXPECT "the loop stores through 'level', which the kernel also reads outside the loop (line 50), and the kernel has effects outside the loop (line 55)")
endfunction()

# ---- case (b): a template on a device launch (rewriters/*_launch) at every
# lb_threshold. dbuf-global, dual-queue and dbuf-shared remove the device
# launch (promotion to no dynamic parallelism); dpar-opt keeps one launch per
# parent block. The goldens are graph goldens (golden/graph/<program>.<variant>.cu),
# so tests/gpu checks each against examples/graph/<program>.cu on every graph
# input (built with -rdc) and bench/graph times them next to the hand-written
# flat kernels. Each must also compile WITHOUT -rdc (rewrite_nvcc_nordc.*):
# nothing launches from the device any more, or (dpar-opt) the launch is
# compiled out and the blocks run the held launches themselves.
function(nestor_lb_launch_template_cases rw)
  string(REPLACE "-" "_" rw_name ${rw})
  set(graph_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/graph)
  nestor_dp_graph_launches(programs launches)
  foreach(program launch IN ZIP_LISTS programs launches)
    foreach(thr 32 64 128 256)
      # The threshold is only a constant in the code: one -rdc-free build per template.
      set(nordc "")
      if(thr EQUAL 32)
        set(nordc NVCC_NORDC)
      endif()
      nestor_rewrite_case(graph/${program}.${rw_name}_${thr} INPUT examples/graph/${program}.cu AT "${launch}"
        APPLY ${rw} PARAMS lb_threshold=${thr} ${graph_inc} ${nordc})
    endforeach()
  endforeach()
  # Cases of the DP family (rewriters/dp_common/tests/family.cmake): the
  # launch after the #includes, and class-type arguments, which a record of
  # the launch's arguments would default-construct in device code.
  nestor_dp_launch_after_includes_case(${rw})
  nestor_dp_argument_record_refusals(${rw})
  # The launch's arguments name the parent's locals `t`, `b`, `bd` and `gd`:
  # the small launch run in the parent thread must pass those, not the
  # template's own names (a held-out gossip round's `t - 1` did not compile).
  file(RELATIVE_PATH fx "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
  nestor_rewrite_case(templates/launch_names.${rw_name} INPUT ${fx}/launch_names.cu AT "^names" APPLY ${rw}
    PARAMS lb_threshold=32)
endfunction()

# Refusals of a launch template on launch_refusals.cu: a child with __shared__
# memory, a launch in a loop; HOLDS_IN_BLOCK: the block phase after the
# parent body has barriers of its own; REMOVES_DEVICE_LAUNCH: nothing may need
# the device runtime after the promotion.
function(nestor_lb_launch_refusal_cases rw)
  cmake_parse_arguments(ARG "HOLDS_IN_BLOCK;REMOVES_DEVICE_LAUNCH" "" "" ${ARGN})
  string(REPLACE "-" "_" rw_name ${rw})
  file(RELATIVE_PATH fx "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
  set(launch_fx ${fx}/launch_refusals.cu)
  nestor_rewrite_refusal(templates.${rw_name}_child_shared INPUT ${launch_fx} AT "^child_shared" APPLY ${rw}
    EXPECT "uses the __shared__ 'tile' (line 7)")
  nestor_rewrite_refusal(templates.${rw_name}_in_loop INPUT ${launch_fx} AT "^in_loop" APPLY ${rw}
    EXPECT "inside the loop at line 25")
  nestor_rewrite_refusal(templates.${rw_name}_unparsed_child INPUT rewriters/dp_common/tests/unparsed_child.cu AT "^"
    APPLY ${rw} EXPECT "child group_scale has code clang could not parse (line 10)")
  nestor_rewrite_refusal(templates.${rw_name}_helper_barrier INPUT rewriters/dp_common/tests/helper_barrier.cu AT "^"
    APPLY ${rw} EXPECT "child pair_sum cannot run its threads one after another: 'pair_sum' uses __syncthreads (line 4)")
  nestor_rewrite_refusal(templates.${rw_name}_header_index INPUT rewriters/dp_common/tests/header_index_child.cu AT "scale_neighbours<<<"
    APPLY ${rw} EXPECT "child kernel scale_neighbours calls child_thread(), which reads blockIdx (a clone cannot replace it there)")
  if(ARG_HOLDS_IN_BLOCK)
    nestor_rewrite_refusal(templates.${rw_name}_parent_barrier INPUT ${launch_fx} AT "^parent_barrier" APPLY ${rw}
      EXPECT "parent barrier_parent calls __syncthreads (line 41)")
    nestor_rewrite_refusal(templates.${rw_name}_parent_helper_barrier INPUT ${fx}/parent_helper_barrier.cu AT "^"
      APPLY ${rw} EXPECT "parent tile_parent calls 'publish_tile', which calls __syncthreads (line 7)")
  endif()
  if(ARG_REMOVES_DEVICE_LAUNCH)
    nestor_rewrite_refusal(templates.${rw_name}_device_runtime INPUT ${launch_fx} AT "^device_runtime" APPLY ${rw}
      EXPECT "calls cudaPeekAtLastError (line 31)")
  endif()
endfunction()

# lb_threshold compared with the launch's useful work (issue #21): the child's
# guard (`threadIdx.x < degree` under a one-block grid, `i >= count` return)
# gives the useful thread count, its argument at the launch.
function(nestor_lb_useful_threads_cases rw)
  string(REPLACE "-" "_" rw_name ${rw})
  file(RELATIVE_PATH fx "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
  foreach(what sssp tc)
    nestor_rewrite_case(templates/useful_threads.${rw_name}_${what} INPUT ${fx}/useful_threads.cu AT "^${what}"
      APPLY ${rw})
  endforeach()
endfunction()

# The code action title of a launch template at neighbour_sum's launch
# (--list --verbose): rewrite_listed.templates.<id>_title.
function(nestor_lb_launch_title_listed rw title)
  nestor_rewrite_listed(templates.${rw}_title INPUT examples/graph/neighbour_sum.cu AT "ns_child<<<"
    FLAGS --verbose -- -I${PROJECT_SOURCE_DIR}/examples/graph
    EXPECT "${rw} [${title}, lb_threshold 64]: applies")
endfunction()

# A refusal at the device launch of each graph program (examples/graph):
# rewrite_refusal.templates.<program>_<name>.
function(nestor_lb_graph_launch_refusal name)
  cmake_parse_arguments(ARG "" "APPLY;EXPECT" "" ${ARGN})
  nestor_dp_graph_launches(programs launches)
  foreach(program launch IN ZIP_LISTS programs launches)
    nestor_rewrite_refusal(templates.${program}_${name} INPUT examples/graph/${program}.cu AT "${launch}"
      APPLY ${ARG_APPLY} EXPECT "${ARG_EXPECT}")
  endforeach()
endfunction()
