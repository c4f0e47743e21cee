# Every offer applies (issue #21): a kernel directly after the #include lines,
# where the runtime include and the code a rewrite puts before the kernel (or
# the child) share one offset. Each rewrite offered there is applied and its
# golden compiled; rewrite_all_offers.* applies every variant at every loop
# and launch of every fixture and example.
set(edits_fx tests/fixtures/edits)
foreach(rw dual-queue dbuf-shared dbuf-global dpar-opt)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_case(edits/loop_after_includes.${rw_name} INPUT ${edits_fx}/loop_after_includes.cu AT 6 APPLY ${rw})
endforeach()
foreach(rw threshold coarsen aggregate dbuf-global-launch dual-queue-launch dbuf-shared-launch dpar-opt-launch)
  string(REPLACE "-" "_" rw_name ${rw})
  nestor_rewrite_case(edits/launch_after_includes.${rw_name} INPUT ${edits_fx}/launch_after_includes.cu AT 15 APPLY ${rw})
endforeach()
