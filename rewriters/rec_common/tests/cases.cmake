# Recursion templates (issue 12; rec-hier and rec-flat): what belongs to the
# family as a whole, no rewrite's output: the programs the templates rewrite
# and the hand-written flat version that rec-flat's output is measured against
# build as they are. Each template's cases are in rewriters/rec_hier/tests/
# and rewriters/rec_flat/tests/, those written once for both in family.cmake
# (here). Registered by tests/rewrite/CMakeLists.txt.
include(${CMAKE_CURRENT_LIST_DIR}/family.cmake)
if(NESTOR_NVCC)
  # The inputs themselves build as CDP2 programs (-rdc, cudadevrt).
  nestor_rec_programs(rec_programs)
  foreach(program ${rec_programs})
    add_test(NAME rewrite_nvcc.recursion/${program}.original
      COMMAND ${NESTOR_NVCC} -rdc=true -arch=sm_90 -std=c++17 -c ${PROJECT_SOURCE_DIR}/examples/trees/${program}.cu
              -o ${CMAKE_CURRENT_BINARY_DIR}/recursion/${program}.original.o)
    set_tests_properties(rewrite_nvcc.recursion/${program}.original PROPERTIES LABELS "rewrite;nvcc")
  endforeach()
  add_test(NAME rewrite_nvcc_nordc.recursion/descendants_flat_handwritten
    COMMAND ${NESTOR_NVCC} -arch=sm_90 -std=c++17 -c ${PROJECT_SOURCE_DIR}/examples/trees/descendants_flat.cu
            -o ${CMAKE_CURRENT_BINARY_DIR}/recursion/descendants_flat.o)
  set_tests_properties(rewrite_nvcc_nordc.recursion/descendants_flat_handwritten PROPERTIES LABELS "rewrite;nvcc")
endif()
