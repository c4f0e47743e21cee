# dbuf-global (rewriters/dbuf_global, docs/rewrites-templates.md): the
# load-balancing loop templates' cases (rewriters/lb_common/tests/family.cmake)
# and dbuf-global's own; goldens in tests/golden/. Registered by
# tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/lb_common/tests/family.cmake)
nestor_lb_loop_template_cases(dbuf-global)

# Conditional updates (`if (c) cnt++;`, a + reduction of `c ? 1 : 0`; the
# two-statement form `int u = adj[e]; if (label[u] == target) sum += w[e];`):
# the block-mapped phase evaluates the condition for other threads' rows.
foreach(entry "heavy_neighbours|cond_count.dbuf_global_32" "label_weight|cond_count.weight_dbuf_global_32")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 kernel)
  list(GET parts 1 golden)
  nestor_rewrite_case(templates/${golden} INPUT tests/fixtures/loops/cond_count.cu AT "for (int e = row[v]"
    AFTER "void ${kernel}(" APPLY dbuf-global PARAMS lb_threshold=32 NVCC_FLAGS -I${PROJECT_SOURCE_DIR}/tests/fixtures/loops)
endforeach()
# The same-label count reads the thread's v in its condition: refused.
nestor_rewrite_refusal(templates.dbuf_global_cond_reads_local INPUT tests/fixtures/loops/cond_count.cu
  AT "for (int e = row[v]" AFTER "void same_label_count(" APPLY dbuf-global
  EXPECT "the loop body reads the thread's local 'v'")

# A launch of the kernel that names a stream is refused: the passes after it
# must be ordered on the default stream.
nestor_rewrite_refusal(templates.dbuf_global_named_stream INPUT rewriters/lb_common/tests/refusals.cu
  AT "^named_stream" APPLY dbuf-global EXPECT "line 67 names a stream (st)")
# The family's for-each checks (one template each): a body that writes a
# thread's local.
nestor_rewrite_refusal(templates.foreach_carried_local INPUT rewriters/lb_common/tests/foreach_refusals.cu
  AT "^carried_local" APPLY dbuf-global EXPECT "writes the thread's local 'seen'")
# sssp's flat loop (bench/graph/flat): its iterations are independent
# (commutative atomicMin), but a loop with atomics is distributed only under a
# #pragma np parallel for: said so.
nestor_rewrite_refusal(templates.sssp_flat_atomics INPUT bench/graph/flat/sssp.cu AT "for (unsigned e = offsets[v]"
  APPLY dbuf-global
  EXPECT "as a loop of independent iterations: the loop's iterations are independent, but it calls an atomic (line 32)")
# A template kernel: the template emits one non-template copy of the kernel
# (loop_common's findLoopKernel, shared with merge-path).
nestor_rewrite_refusal(templates.dbuf_global_template_kernel INPUT rewriters/lb_common/tests/template_kernel.cu
  AT "^" APPLY dbuf-global EXPECT "'row_sums_t' is a template kernel")
