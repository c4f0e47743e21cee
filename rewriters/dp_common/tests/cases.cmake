# The load-balancing launch templates' cases of the dynamic-parallelism family
# (family.cmake, here): the launch after the #include lines, and launch
# arguments of class type, refused as for aggregate. Each DP rewrite's own
# cases are in rewriters/{threshold,coarsen,aggregate}/tests/cases.cmake.
# Registered by tests/rewrite/CMakeLists.txt.
include(${CMAKE_CURRENT_LIST_DIR}/family.cmake)
foreach(rw dbuf-global-launch dual-queue-launch dbuf-shared-launch dpar-opt-launch)
  nestor_dp_launch_after_includes_case(${rw})
  nestor_dp_argument_record_refusals(${rw})
endforeach()
