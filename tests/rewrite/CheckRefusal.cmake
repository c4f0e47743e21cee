# The rewrite must be refused with exit code 1 and a reason naming EXPECT.
separate_arguments(PARAMS)
separate_arguments(FLAGS)
include(${CMAKE_CURRENT_LIST_DIR}/ResolveAt.cmake)
execute_process(
  COMMAND ${NESTOR} rewrite ${AT_INPUT} --at ${AT_LINE} --apply ${APPLY} ${PARAMS} ${FLAGS}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected a refusal (exit 1), got exit ${rc}: ${err}")
endif()
string(FIND "${err}" "${EXPECT}" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "refusal reason does not mention '${EXPECT}': ${err}")
endif()
string(REGEX MATCHALL "\n" lines "${err}")
list(LENGTH lines n)
if(n GREATER 1)
  message(FATAL_ERROR "refusal must be one line, got: ${err}")
endif()
