# dual-queue (rewriters/dual_queue, docs/rewrites-templates.md): the
# load-balancing loop templates' cases (rewriters/lb_common/tests/family.cmake)
# and dual-queue's own; goldens in tests/golden/. Registered by
# tests/rewrite/CMakeLists.txt.
include(${PROJECT_SOURCE_DIR}/rewriters/lb_common/tests/family.cmake)
nestor_lb_loop_template_cases(dual-queue)

# A launch of the kernel that names a stream is refused: the passes after it
# must be ordered on the default stream.
nestor_rewrite_refusal(templates.dual_queue_named_stream INPUT rewriters/lb_common/tests/refusals.cu
  AT "^named_stream" APPLY dual-queue EXPECT "line 67 names a stream (st)")
# The family's for-each checks (one template each): a body that reads a
# thread's local computed before the loop.
nestor_rewrite_refusal(templates.foreach_reads_local INPUT rewriters/lb_common/tests/foreach_refusals.cu
  AT "^reads_local" APPLY dual-queue EXPECT "reads the thread's local 'next'")
