# Load-balancing templates (issue 12, irregular-loop-and-recursion-templates.md
# II-B): the loop templates dual-queue, dbuf-shared, dbuf-global, dpar-opt and
# the launch templates *-launch, their cases written once for the family
# (lb_common); each golden lives with its rewrite
# (rewriters/<rewrite>/tests/golden/). Every golden compiles with nvcc
# (rewrite_nvcc.*); the GPU tests run them against their originals
# (tests/gpu/templates: golden/templates/; tests/gpu: golden/graph/).
# The inputs here (tests/) only these cases read: their targets carry cursor
# markers. Registered by tests/rewrite/CMakeLists.txt.
set(lb_loops "dual-queue;dbuf-shared;dbuf-global;dpar-opt")
set(tmpl_loops_fx tests/fixtures/loops)
set(tmpl_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops)
set(csr_row_loop "for (int j = rowptr[row]")
set(csr_vertex_loop "for (int e = offsets[v]")
foreach(rw ${lb_loops})
  string(REPLACE "-" "_" rw_name ${rw})
  foreach(thr 32 64 128 256)
    # dpar-opt also builds without -rdc (the planner builds variants with the
    # project's own command): the device launch is compiled out and each
    # block processes its buffer itself.
    set(nordc "")
    if(rw STREQUAL "dpar-opt" AND thr EQUAL 64)
      set(nordc NVCC_NORDC)
    endif()
    nestor_rewrite_case(templates/spmv_csr.${rw_name}_${thr} INPUT ${tmpl_loops_fx}/spmv_csr.cu AT "${csr_row_loop}"
      APPLY ${rw} PARAMS lb_threshold=${thr} ${tmpl_inc} ${nordc})
  endforeach()
  set(nordc "")
  if(rw STREQUAL "dpar-opt")
    set(nordc NVCC_NORDC)
  endif()
  nestor_rewrite_case(templates/degree_gather.${rw_name}_32 INPUT ${tmpl_loops_fx}/degree_gather.cu
    AT "${csr_vertex_loop}" APPLY ${rw} PARAMS lb_threshold=32 ${tmpl_inc} ${nordc})
  # The mapped expression calls user __device__ helpers (pure by their bodies).
  nestor_rewrite_case(templates/helper_sum.${rw_name}_32 INPUT ${tmpl_loops_fx}/helper_sum.cu AT "${csr_vertex_loop}"
    APPLY ${rw} PARAMS lb_threshold=32 ${tmpl_inc})

  # CSR bounds held in locals (issue #21, nestor/DefUse.h): `int start = ptr[tid];
  # int end = ptr[tid + 1];` is the CSR pair; a bound written again, or whose
  # address is taken, is not seen through.
  nestor_rewrite_case(templates/csr_locals.${rw_name}_64 INPUT csr_locals.cu AT "^locals" APPLY ${rw})
  foreach(what written_again address_taken)
    nestor_rewrite_refusal(templates.${rw_name}_csr_local_${what} INPUT csr_locals.cu AT "^${what}" APPLY ${rw}
      EXPECT "the bounds `start` .. `end` are not a CSR-like pair")
  endforeach()

  # Refusals, each naming the construct and its line.
  nestor_rewrite_refusal(templates.${rw_name}_not_csr INPUT refusals.cu AT "^not_csr" APPLY ${rw}
    EXPECT "are not a CSR-like pair")
  nestor_rewrite_refusal(templates.${rw_name}_carried_state INPUT refusals.cu AT "^nested" APPLY ${rw}
    EXPECT "nested in the loop at line 18")
  nestor_rewrite_refusal(templates.${rw_name}_shared INPUT refusals.cu AT "^shared" APPLY ${rw}
    EXPECT "__shared__ 'tile' (line 28)")
  nestor_rewrite_refusal(templates.${rw_name}_store_before_loop INPUT refusals.cu AT "^store_before_loop" APPLY ${rw}
    EXPECT "statement at line 42 writes memory before the loop")
  nestor_rewrite_refusal(templates.${rw_name}_reads_local INPUT refusals.cu AT "^reads_local" APPLY ${rw}
    EXPECT "reads the thread's local 'scale'")

  # Every offer applies (issue #21): a kernel directly after the #include
  # lines (tests/fixtures/edits, which rewrite_all_offers also reads).
  nestor_rewrite_case(edits/loop_after_includes.${rw_name} INPUT tests/fixtures/edits/loop_after_includes.cu
    AT "${csr_row_loop}" APPLY ${rw})
endforeach()
nestor_rewrite_refusal(templates.dual_queue_named_stream INPUT refusals.cu AT "^named_stream" APPLY dual-queue
  EXPECT "line 67 names a stream (st)")
nestor_rewrite_refusal(templates.dbuf_global_named_stream INPUT refusals.cu AT "^named_stream" APPLY dbuf-global
  EXPECT "line 67 names a stream (st)")
# The same kernel is fine for dbuf-shared (one kernel, launches unchanged).
nestor_rewrite_case(templates/refusals.dbuf_shared_on_stream INPUT refusals.cu AT "^named_stream" APPLY dbuf-shared
  PARAMS lb_threshold=64)
# A loop with a uniform trip count is not irregular.
nestor_rewrite_refusal(templates.dbuf_shared_uniform_trip INPUT tests/fixtures/loops/tmv.cu AT "for (int i = 0"
  APPLY dbuf-shared EXPECT "not irregular")

# ---- case (b): the four templates on a device launch (rewriters/*_launch) at
# every lb_threshold. dbuf-global, dual-queue and dbuf-shared remove the device
# launch (promotion to no dynamic parallelism); dpar-opt keeps one launch per
# parent block. The goldens are graph goldens (golden/graph/<program>.<variant>.cu),
# so tests/gpu checks each against examples/graph/<program>.cu on every graph
# input (built with -rdc) and bench/graph times them next to the hand-written
# flat kernels. Each must also compile WITHOUT -rdc (rewrite_nvcc_nordc.*):
# nothing launches from the device any more, or (dpar-opt) the launch is
# compiled out and the blocks run the held launches themselves.
set(graph_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/examples/graph)
foreach(entry "neighbour_sum|ns_child<<<" "bfs|bfs_child<<<" "sssp|sssp_child<<<")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 program)
  list(GET parts 1 launch)
  set(site INPUT examples/graph/${program}.cu AT "${launch}")
  foreach(rw_name dbuf_global_launch dual_queue_launch dbuf_shared_launch dpar_opt_launch)
    string(REPLACE "_" "-" rw ${rw_name})
    foreach(thr 32 64 128 256)
      # The threshold is only a constant in the code: one -rdc-free build per template.
      set(nordc "")
      if(thr EQUAL 32)
        set(nordc NVCC_NORDC)
      endif()
      nestor_rewrite_case(graph/${program}.${rw_name}_${thr} ${site} APPLY ${rw} PARAMS lb_threshold=${thr}
        ${graph_inc} ${nordc})
    endforeach()
  endforeach()
  nestor_rewrite_refusal(templates.${program}_dbuf_global_launch_twice ${site}
    APPLY dbuf-global-launch,dbuf-global-launch EXPECT "no kernel launch at")
  nestor_rewrite_refusal(templates.${program}_dbuf_shared_launch_twice ${site}
    APPLY dbuf-shared-launch,dpar-opt-launch EXPECT "no kernel launch at")
endforeach()
# ---- case (a) on the graph programs' flat (no-CDP) kernels of bench/graph/flat:
# neighbour_sum's loop is a + reduction through a user __device__ helper, bfs's
# a loop of independent iterations with stores (the for-each form: the block
# pass runs the body, the owner's replay skips the loop). The goldens are graph
# goldens, so tests/gpu checks each against examples/graph/<program>.cu on
# every graph input and bench/graph times them next to flat and CDP.
# sssp's loop (atomicMin; reads the thread's dist_v) is refused.
foreach(entry "neighbour_sum|for (unsigned e = offsets[v]" "bfs|for (unsigned e = offsets[gid]")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 program)
  list(GET parts 1 loop)
  foreach(rw ${lb_loops})
    string(REPLACE "-" "_" rw_name ${rw})
    foreach(thr 32 64 128 256)
      nestor_rewrite_case(graph/${program}.flat_${rw_name}_${thr} INPUT bench/graph/flat/${program}.cu AT "${loop}"
        APPLY ${rw} PARAMS lb_threshold=${thr} ${graph_inc})
    endforeach()
  endforeach()
endforeach()
set(foreach_fx foreach_refusals.cu)
nestor_rewrite_refusal(templates.foreach_carried_local INPUT ${foreach_fx} AT "^carried_local" APPLY dbuf-global
  EXPECT "writes the thread's local 'seen'")
nestor_rewrite_refusal(templates.foreach_reads_local INPUT ${foreach_fx} AT "^reads_local" APPLY dual-queue
  EXPECT "reads the thread's local 'next'")
nestor_rewrite_refusal(templates.foreach_break INPUT ${foreach_fx} AT "^break" APPLY dbuf-shared
  EXPECT "leaves through break, continue, return or goto")
nestor_rewrite_refusal(templates.foreach_thread_ids INPUT ${foreach_fx} AT "^thread_ids" APPLY dpar-opt
  EXPECT "reads threadIdx")
# The owner's replay runs after the delayed iterations' stores: refused when
# the code outside the loop reads what the loop stores and has effects of its
# own; offered when nothing outside the loop has an effect (bfs's shape) or the
# loop stores elsewhere.
foreach(rw ${lb_loops})
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_refusal(templates.foreach_replay_diverges_${rw_name} INPUT ${foreach_fx} AT "^replay_diverges"
    APPLY ${rw}
    EXPECT "the loop stores through 'level', which the kernel also reads outside the loop (line 50), and the kernel has effects outside the loop (line 55)")
endforeach()
# (The suffixes 64 and 74 are names.)
foreach(entry "64|replay_unobservable" "74|replay_other_memory")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 suffix)
  list(GET parts 1 marker)
  nestor_rewrite_listed(templates.foreach_replay_safe_${suffix} INPUT ${foreach_fx} AT "^${marker}" FLAGS --verbose
    EXPECT "dbuf-shared [Delayed buffer in shared memory (dbuf-shared), lb_threshold 64]: applies")
endforeach()
# Its iterations are independent (commutative atomicMin), but a loop with
# atomics is distributed only under a #pragma np parallel for: said so.
nestor_rewrite_refusal(templates.sssp_flat_atomics INPUT bench/graph/flat/sssp.cu AT "for (unsigned e = offsets[v]"
  APPLY dbuf-global
  EXPECT "as a loop of independent iterations: the loop's iterations are independent, but it calls an atomic (line 32)")

set(launch_fx launch_refusals.cu)
nestor_rewrite_refusal(templates.dbuf_global_launch_child_shared INPUT ${launch_fx} AT "^child_shared"
  APPLY dbuf-global-launch EXPECT "uses the __shared__ 'tile' (line 7)")
nestor_rewrite_refusal(templates.dbuf_global_launch_in_loop INPUT ${launch_fx} AT "^in_loop" APPLY dbuf-global-launch
  EXPECT "inside the loop at line 25")
nestor_rewrite_refusal(templates.dbuf_global_launch_device_runtime INPUT ${launch_fx} AT "^device_runtime"
  APPLY dbuf-global-launch EXPECT "calls cudaPeekAtLastError (line 31)")
foreach(rw dbuf-shared-launch dpar-opt-launch)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_refusal(templates.${rw_name}_child_shared INPUT ${launch_fx} AT "^child_shared" APPLY ${rw}
    EXPECT "uses the __shared__ 'tile' (line 7)")
  nestor_rewrite_refusal(templates.${rw_name}_in_loop INPUT ${launch_fx} AT "^in_loop" APPLY ${rw}
    EXPECT "inside the loop at line 25")
  # The block phase after the parent body has barriers of its own.
  nestor_rewrite_refusal(templates.${rw_name}_parent_barrier INPUT ${launch_fx} AT "^parent_barrier" APPLY ${rw}
    EXPECT "parent barrier_parent calls __syncthreads (line 41)")
endforeach()
nestor_rewrite_refusal(templates.dbuf_shared_launch_device_runtime INPUT ${launch_fx} AT "^device_runtime"
  APPLY dbuf-shared-launch EXPECT "calls cudaPeekAtLastError (line 31)")
nestor_rewrite_refusal(templates.dbuf_shared_launch_dynamic_shared INPUT ${launch_fx} AT "^dynamic_shared"
  APPLY dbuf-shared-launch EXPECT "line 58 asks for dynamic shared memory (128 * sizeof(unsigned))")
# dpar-opt keeps dynamic parallelism: the device runtime elsewhere in the
# parent and dynamic shared memory (extern __shared__ in the moved body) are fine.
nestor_rewrite_case(templates/launch_refusals.dpar_opt_launch_device_runtime INPUT ${launch_fx} AT "^device_runtime"
  APPLY dpar-opt-launch PARAMS lb_threshold=64)
nestor_rewrite_case(templates/launch_refusals.dpar_opt_launch_dynamic_shared INPUT ${launch_fx} AT "^dynamic_shared"
  APPLY dpar-opt-launch PARAMS lb_threshold=64)

# The promotions say in their code action title that -rdc is no longer needed;
# dpar-opt keeps its device launch and says what it does instead.
set(ns_launch INPUT examples/graph/neighbour_sum.cu AT "ns_child<<<"
  FLAGS --verbose -- -I${PROJECT_SOURCE_DIR}/examples/graph)
foreach(entry "dbuf-global-launch|dbuf-global" "dual-queue-launch|dual-queue" "dbuf-shared-launch|dbuf-shared")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 rw)
  list(GET parts 1 what)
  nestor_rewrite_listed(templates.${rw}_title ${ns_launch}
    EXPECT "${rw} [Remove the device launch (no -rdc/cudadevrt needed): ${what}, lb_threshold 64]: applies")
endforeach()
nestor_rewrite_listed(templates.dpar-opt-launch_title ${ns_launch}
  EXPECT "dpar-opt-launch [One device launch per block (dpar-opt), lb_threshold 64]: applies")

# lb_threshold compared with the launch's useful work (issue #21): the child's
# guard (`threadIdx.x < degree` under a one-block grid, `i >= count` return)
# gives the useful thread count, its argument at the launch.
foreach(rw dbuf-global-launch dbuf-shared-launch)
  string(REPLACE "-" "_" rw_name ${rw})
  foreach(what sssp tc)
    nestor_rewrite_case(templates/useful_threads.${rw_name}_${what} INPUT useful_threads.cu AT "^${what}" APPLY ${rw})
  endforeach()
endforeach()
