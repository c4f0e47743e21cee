# Load-balancing templates for irregular loops (issue 12,
# irregular-loop-and-recursion-templates.md II-B): dual-queue, dbuf-shared and
# dbuf-global at every lb_threshold on the CSR SpMV and degree-gather fixtures
# of tests/fixtures/loops/. Every golden compiles with nvcc (rewrite_nvcc.*)
# and runs against its original on the GPU (tests/gpu/templates/).
set(tmpl_loops_fx tests/fixtures/loops)
set(tmpl_inc NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops)
foreach(rw dual-queue dbuf-shared dbuf-global)
  string(REPLACE "-" "_" rw_name ${rw})
  foreach(thr 32 64 128 256)
    nestor_rewrite_case(templates/spmv_csr.${rw_name}_${thr} INPUT ${tmpl_loops_fx}/spmv_csr.cu AT 9 APPLY ${rw}
      PARAMS lb_threshold=${thr} ${tmpl_inc})
  endforeach()
  nestor_rewrite_case(templates/degree_gather.${rw_name}_32 INPUT ${tmpl_loops_fx}/degree_gather.cu AT 9 APPLY ${rw}
    PARAMS lb_threshold=32 ${tmpl_inc})
endforeach()

# Refusals, each naming the construct and its line.
set(tmpl_fx tests/fixtures/templates/refusals.cu)
foreach(rw dual-queue dbuf-shared dbuf-global)
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
