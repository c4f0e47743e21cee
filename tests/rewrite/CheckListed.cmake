# `nestor rewrite INPUT --at AT --list FLAGS` must exit 0 and print EXPECT (a
# code action title, e.g. that a promotion removes the device launch: those
# need FLAGS --verbose, the one line per variant; a refused family's line).
separate_arguments(FLAGS)
include(${CMAKE_CURRENT_LIST_DIR}/ResolveAt.cmake)
execute_process(
  COMMAND ${NESTOR} rewrite ${AT_INPUT} --at ${AT_LINE} --list ${FLAGS}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--list failed with exit ${rc}: ${err}")
endif()
string(FIND "${out}" "${EXPECT}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "--list does not show '${EXPECT}':\n${out}")
endif()
