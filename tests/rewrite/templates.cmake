# Load-balancing templates for irregular loops (issue 12,
# irregular-loop-and-recursion-templates.md II-B): dual-queue, dbuf-shared and
# dbuf-global, dpar-opt at every lb_threshold on the CSR SpMV and degree-gather fixtures
# of tests/fixtures/loops/. Every golden compiles with nvcc (rewrite_nvcc.*)
# and runs against its original on the GPU (tests/gpu/templates/).
set(tmpl_loops_fx tests/fixtures/loops)
set(tmpl_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops)
foreach(rw dual-queue dbuf-shared dbuf-global dpar-opt)
  string(REPLACE "-" "_" rw_name ${rw})
  foreach(thr 32 64 128 256)
    nestor_rewrite_case(templates/spmv_csr.${rw_name}_${thr} INPUT ${tmpl_loops_fx}/spmv_csr.cu AT 9 APPLY ${rw}
      PARAMS lb_threshold=${thr} ${tmpl_inc})
  endforeach()
  nestor_rewrite_case(templates/degree_gather.${rw_name}_32 INPUT ${tmpl_loops_fx}/degree_gather.cu AT 9 APPLY ${rw}
    PARAMS lb_threshold=32 ${tmpl_inc})
  # The mapped expression calls user __device__ helpers (pure by their bodies).
  nestor_rewrite_case(templates/helper_sum.${rw_name}_32 INPUT ${tmpl_loops_fx}/helper_sum.cu AT 15 APPLY ${rw}
    PARAMS lb_threshold=32 ${tmpl_inc})
endforeach()

# CSR bounds held in locals (issue #21, nestor/DefUse.h): `int start = ptr[tid];
# int end = ptr[tid + 1];` is the CSR pair; a bound written again, or whose
# address is taken, is not seen through.
set(tmpl_locals_fx tests/fixtures/templates/csr_locals.cu)
foreach(rw dual-queue dbuf-shared dbuf-global dpar-opt)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_case(templates/csr_locals.${rw_name}_64 INPUT ${tmpl_locals_fx} AT 18 APPLY ${rw})
  nestor_rewrite_refusal(templates.${rw_name}_csr_local_written_again INPUT ${tmpl_locals_fx} AT 31 APPLY ${rw}
    EXPECT "the bounds `start` .. `end` are not a CSR-like pair")
  nestor_rewrite_refusal(templates.${rw_name}_csr_local_address_taken INPUT ${tmpl_locals_fx} AT 43 APPLY ${rw}
    EXPECT "the bounds `start` .. `end` are not a CSR-like pair")
endforeach()

# Refusals, each naming the construct and its line.
set(tmpl_fx tests/fixtures/templates/refusals.cu)
foreach(rw dual-queue dbuf-shared dbuf-global dpar-opt)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_refusal(templates.${rw_name}_not_csr INPUT ${tmpl_fx} AT 10 APPLY ${rw}
    EXPECT "are not a CSR-like pair")
  nestor_rewrite_refusal(templates.${rw_name}_carried_state INPUT ${tmpl_fx} AT 20 APPLY ${rw}
    EXPECT "nested in the loop at line 18")
  nestor_rewrite_refusal(templates.${rw_name}_shared INPUT ${tmpl_fx} AT 34 APPLY ${rw}
    EXPECT "__shared__ 'tile' (line 28)")
  nestor_rewrite_refusal(templates.${rw_name}_store_before_loop INPUT ${tmpl_fx} AT 44 APPLY ${rw}
    EXPECT "statement at line 42 writes memory before the loop")
  nestor_rewrite_refusal(templates.${rw_name}_reads_local INPUT ${tmpl_fx} AT 53 APPLY ${rw}
    EXPECT "reads the thread's local 'scale'")
endforeach()
nestor_rewrite_refusal(templates.dual_queue_named_stream INPUT ${tmpl_fx} AT 62 APPLY dual-queue
  EXPECT "line 67 names a stream (st)")
nestor_rewrite_refusal(templates.dbuf_global_named_stream INPUT ${tmpl_fx} AT 62 APPLY dbuf-global
  EXPECT "line 67 names a stream (st)")
# The same kernel is fine for dbuf-shared (one kernel, launches unchanged).
nestor_rewrite_case(templates/refusals.dbuf_shared_on_stream INPUT ${tmpl_fx} AT 62 APPLY dbuf-shared
  PARAMS lb_threshold=64)
# A loop with a uniform trip count is not irregular.
nestor_rewrite_refusal(templates.dbuf_shared_uniform_trip INPUT tests/fixtures/loops/tmv.cu AT 11 APPLY dbuf-shared
  EXPECT "not irregular")

# ---- case (b): the four templates on a device launch (rewriters/*_launch) at
# every lb_threshold. dbuf-global, dual-queue and dbuf-shared remove the device
# launch (promotion to no dynamic parallelism); dpar-opt keeps one launch per
# parent block. The goldens live with the other graph goldens
# (golden/graph/<program>.<variant>.cu), so tests/gpu checks each against
# examples/graph/<program>.cu on every graph input (built with -rdc) and
# bench/graph times them next to the hand-written flat kernels. Each must also
# compile WITHOUT -rdc (rewrite_nvcc_nordc.*): nothing launches from the device
# any more, or (dpar-opt) the launch is compiled out and the blocks run the
# held launches themselves.
set(tmpl_graph_sites "neighbour_sum:42" "bfs:50" "sssp:66")
foreach(entry ${tmpl_graph_sites})
  string(REPLACE ":" ";" parts ${entry})
  list(GET parts 0 program)
  list(GET parts 1 line)
  foreach(rw_name dbuf_global_launch dual_queue_launch dbuf_shared_launch dpar_opt_launch)
    string(REPLACE "_" "-" rw ${rw_name})
    foreach(thr 32 64 128 256)
      set(name graph/${program}.${rw_name}_${thr})
      nestor_rewrite_case(${name} INPUT examples/graph/${program}.cu AT ${line} APPLY ${rw}
        PARAMS lb_threshold=${thr} NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/graph)
      # The threshold is only a constant in the code: one -rdc-free build per template.
      if(NESTOR_NVCC AND thr EQUAL 32)
        add_test(NAME rewrite_nvcc_nordc.${name}
          COMMAND ${NESTOR_NVCC} -arch=sm_90 -std=c++17 -I${PROJECT_SOURCE_DIR}/runtime/include
                  -I${PROJECT_SOURCE_DIR}/examples/graph -c ${NESTOR_GOLDEN_DIR}/${name}.cu
                  -o ${CMAKE_CURRENT_BINARY_DIR}/${name}.nordc.o)
        set_tests_properties(rewrite_nvcc_nordc.${name} PROPERTIES LABELS "rewrite;nvcc" DEPENDS rewrite_golden.${name})
      endif()
    endforeach()
  endforeach()
  nestor_rewrite_refusal(templates.${program}_dbuf_global_launch_twice INPUT examples/graph/${program}.cu AT ${line}
    APPLY dbuf-global-launch,dbuf-global-launch EXPECT "no kernel launch at")
  nestor_rewrite_refusal(templates.${program}_dbuf_shared_launch_twice INPUT examples/graph/${program}.cu AT ${line}
    APPLY dbuf-shared-launch,dpar-opt-launch EXPECT "no kernel launch at")
endforeach()
# ---- case (a) on the graph programs' flat (no-CDP) kernels of bench/graph/flat:
# neighbour_sum's loop is a + reduction through a user __device__ helper, bfs's
# a loop of independent iterations with stores (the for-each form: the block
# pass runs the body, the owner's replay skips the loop). The goldens live with
# the graph goldens, so tests/gpu checks each against examples/graph/<program>.cu
# on every graph input and bench/graph times them next to flat and CDP.
# sssp's loop (atomicMin; reads the thread's dist_v) is refused.
set(tmpl_flat_sites "neighbour_sum:28" "bfs:26")
foreach(entry ${tmpl_flat_sites})
  string(REPLACE ":" ";" parts ${entry})
  list(GET parts 0 program)
  list(GET parts 1 line)
  foreach(rw dual-queue dbuf-shared dbuf-global dpar-opt)
    string(REPLACE "-" "_" rw_name ${rw})
    foreach(thr 32 64 128 256)
      nestor_rewrite_case(graph/${program}.flat_${rw_name}_${thr} INPUT bench/graph/flat/${program}.cu AT ${line} APPLY ${rw}
        PARAMS lb_threshold=${thr} NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/graph)
    endforeach()
  endforeach()
endforeach()
set(tmpl_foreach_fx tests/fixtures/templates/foreach_refusals.cu)
nestor_rewrite_refusal(templates.foreach_carried_local INPUT ${tmpl_foreach_fx} AT 9 APPLY dbuf-global
  EXPECT "writes the thread's local 'seen'")
nestor_rewrite_refusal(templates.foreach_reads_local INPUT ${tmpl_foreach_fx} AT 21 APPLY dual-queue
  EXPECT "reads the thread's local 'next'")
nestor_rewrite_refusal(templates.foreach_break INPUT ${tmpl_foreach_fx} AT 30 APPLY dbuf-shared
  EXPECT "leaves through break, continue, return or goto")
nestor_rewrite_refusal(templates.foreach_thread_ids INPUT ${tmpl_foreach_fx} AT 40 APPLY dpar-opt
  EXPECT "reads threadIdx")
# The owner's replay runs after the delayed iterations' stores: refused when
# the code outside the loop reads what the loop stores and has effects of its
# own; offered when nothing outside the loop has an effect (bfs's shape) or the
# loop stores elsewhere.
foreach(rw dual-queue dbuf-shared dbuf-global dpar-opt)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_refusal(templates.foreach_replay_diverges_${rw_name} INPUT ${tmpl_foreach_fx} AT 52 APPLY ${rw}
    EXPECT "the loop stores through 'level', which the kernel also reads outside the loop (line 50), and the kernel has effects outside the loop (line 55)")
endforeach()
foreach(line 64 74)
  add_test(NAME rewrite_listed.templates.foreach_replay_safe_${line}
    COMMAND ${CMAKE_COMMAND} -DNESTOR=$<TARGET_FILE:nestor> -DINPUT=${PROJECT_SOURCE_DIR}/${tmpl_foreach_fx} -DAT=${line} -DFLAGS=--verbose
            "-DEXPECT=dbuf-shared [Delayed buffer in shared memory (dbuf-shared), lb_threshold 64]: applies"
            -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckListed.cmake)
  set_tests_properties(rewrite_listed.templates.foreach_replay_safe_${line} PROPERTIES LABELS "rewrite")
endforeach()
# Its iterations are independent (commutative atomicMin), but a loop with
# atomics is distributed only under a #pragma np parallel for: said so.
nestor_rewrite_refusal(templates.sssp_flat_atomics INPUT bench/graph/flat/sssp.cu AT 29 APPLY dbuf-global
  EXPECT "as a loop of independent iterations: the loop's iterations are independent, but it calls an atomic (line 32)")

set(tmpl_launch_fx tests/fixtures/templates/launch_refusals.cu)
nestor_rewrite_refusal(templates.dbuf_global_launch_child_shared INPUT ${tmpl_launch_fx} AT 15 APPLY dbuf-global-launch
  EXPECT "uses the __shared__ 'tile' (line 7)")
nestor_rewrite_refusal(templates.dbuf_global_launch_in_loop INPUT ${tmpl_launch_fx} AT 26 APPLY dbuf-global-launch
  EXPECT "inside the loop at line 25")
nestor_rewrite_refusal(templates.dbuf_global_launch_device_runtime INPUT ${tmpl_launch_fx} AT 32 APPLY dbuf-global-launch
  EXPECT "calls cudaPeekAtLastError (line 31)")
foreach(rw dbuf-shared-launch dpar-opt-launch)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_refusal(templates.${rw_name}_child_shared INPUT ${tmpl_launch_fx} AT 15 APPLY ${rw}
    EXPECT "uses the __shared__ 'tile' (line 7)")
  nestor_rewrite_refusal(templates.${rw_name}_in_loop INPUT ${tmpl_launch_fx} AT 26 APPLY ${rw}
    EXPECT "inside the loop at line 25")
  # The block phase after the parent body has barriers of its own.
  nestor_rewrite_refusal(templates.${rw_name}_parent_barrier INPUT ${tmpl_launch_fx} AT 42 APPLY ${rw}
    EXPECT "parent barrier_parent calls __syncthreads (line 41)")
endforeach()
nestor_rewrite_refusal(templates.dbuf_shared_launch_device_runtime INPUT ${tmpl_launch_fx} AT 32 APPLY dbuf-shared-launch
  EXPECT "calls cudaPeekAtLastError (line 31)")
nestor_rewrite_refusal(templates.dbuf_shared_launch_dynamic_shared INPUT ${tmpl_launch_fx} AT 50 APPLY dbuf-shared-launch
  EXPECT "line 58 asks for dynamic shared memory (128 * sizeof(unsigned))")
# dpar-opt keeps dynamic parallelism: the device runtime elsewhere in the
# parent and dynamic shared memory (extern __shared__ in the moved body) are fine.
nestor_rewrite_case(templates/launch_refusals.dpar_opt_launch_device_runtime INPUT ${tmpl_launch_fx} AT 32
  APPLY dpar-opt-launch PARAMS lb_threshold=64)
nestor_rewrite_case(templates/launch_refusals.dpar_opt_launch_dynamic_shared INPUT ${tmpl_launch_fx} AT 50
  APPLY dpar-opt-launch PARAMS lb_threshold=64)

# The promotions say in their code action title that -rdc is no longer needed.
foreach(entry "dbuf-global-launch:dbuf-global" "dual-queue-launch:dual-queue" "dbuf-shared-launch:dbuf-shared")
  string(REPLACE ":" ";" parts "${entry}")
  list(GET parts 0 rw)
  list(GET parts 1 what)
  add_test(NAME rewrite_listed.templates.${rw}_title
    COMMAND ${CMAKE_COMMAND} -DNESTOR=$<TARGET_FILE:nestor> -DINPUT=${PROJECT_SOURCE_DIR}/examples/graph/neighbour_sum.cu
            -DAT=42 "-DFLAGS=--verbose -- -I${PROJECT_SOURCE_DIR}/examples/graph"
            "-DEXPECT=${rw} [Remove the device launch (no -rdc/cudadevrt needed): ${what}, lb_threshold 64]: applies"
            -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckListed.cmake)
  set_tests_properties(rewrite_listed.templates.${rw}_title PROPERTIES LABELS "rewrite")
endforeach()
# dpar-opt keeps its device launch and says what it does instead.
add_test(NAME rewrite_listed.templates.dpar-opt-launch_title
  COMMAND ${CMAKE_COMMAND} -DNESTOR=$<TARGET_FILE:nestor> -DINPUT=${PROJECT_SOURCE_DIR}/examples/graph/neighbour_sum.cu
          -DAT=42 "-DFLAGS=--verbose -- -I${PROJECT_SOURCE_DIR}/examples/graph"
          "-DEXPECT=dpar-opt-launch [One device launch per block (dpar-opt), lb_threshold 64]: applies"
          -P ${CMAKE_CURRENT_SOURCE_DIR}/CheckListed.cmake)
set_tests_properties(rewrite_listed.templates.dpar-opt-launch_title PROPERTIES LABELS "rewrite")

# dpar-opt also builds without -rdc (the planner builds variants with the
# project's own command): the device launch is compiled out and each block
# processes its buffer itself.
if(NESTOR_NVCC)
  foreach(name templates/spmv_csr.dpar_opt_64 templates/degree_gather.dpar_opt_32)
    add_test(NAME rewrite_nvcc_nordc.${name}
      COMMAND ${NESTOR_NVCC} -arch=sm_90 -std=c++17 -I${PROJECT_SOURCE_DIR}/runtime/include
              -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops -c ${NESTOR_GOLDEN_DIR}/${name}.cu
              -o ${CMAKE_CURRENT_BINARY_DIR}/${name}.nordc.o)
    set_tests_properties(rewrite_nvcc_nordc.${name} PROPERTIES LABELS "rewrite;nvcc" DEPENDS rewrite_golden.${name})
  endforeach()
endif()

# lb_threshold compared with the launch's useful work (issue #21): the child's
# guard (`threadIdx.x < degree` under a one-block grid, `i >= count` return)
# gives the useful thread count, its argument at the launch.
set(tmpl_useful_fx tests/fixtures/templates/useful_threads.cu)
foreach(rw dbuf-global-launch dbuf-shared-launch)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_case(templates/useful_threads.${rw_name}_sssp INPUT ${tmpl_useful_fx} AT 16 APPLY ${rw})
  nestor_rewrite_case(templates/useful_threads.${rw_name}_tc INPUT ${tmpl_useful_fx} AT 29 APPLY ${rw})
endforeach()
