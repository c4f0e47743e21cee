# Runs one rewrite and compares its output with the golden file.
#
#   NESTOR_UPDATE_GOLDEN=1 (only that value) writes the output to the golden
#   file instead and prints the diff from the old one; unset, empty or 0
#   verifies; any other value is an error (a typo must not rewrite goldens).
#
# VERIFIED (optional): where the output is copied once it is the golden
# (verified, or just written); removed first, so the nvcc compile check
# (rewrite_nvcc.*, which compiles VERIFIED) never compiles a golden whose
# check failed or did not run.
separate_arguments(PARAMS)
separate_arguments(FLAGS)
if(DEFINED VERIFIED)
  file(REMOVE ${VERIFIED})
endif()
set(update "$ENV{NESTOR_UPDATE_GOLDEN}")
if(NOT update STREQUAL "" AND NOT update STREQUAL "0" AND NOT update STREQUAL "1")
  message(FATAL_ERROR "NESTOR_UPDATE_GOLDEN='${update}': set it to 1 to rewrite goldens, or leave it unset to verify them")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/ResolveAt.cmake)
execute_process(
  COMMAND ${NESTOR} rewrite ${AT_INPUT} --at ${AT_LINE} --apply ${APPLY} ${PARAMS} ${FLAGS}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nestor rewrite failed (exit ${rc}): ${err}")
endif()
string(RANDOM LENGTH 8 tag)
set(actual_file ${CMAKE_CURRENT_BINARY_DIR}/actual-${tag}.cu)
if(update STREQUAL "1")
  get_filename_component(dir ${GOLDEN} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  if(EXISTS ${GOLDEN})
    file(READ ${GOLDEN} old)
    if(old STREQUAL out)
      message(STATUS "NESTOR_UPDATE_GOLDEN=1: ${GOLDEN} unchanged")
    else()
      file(WRITE ${actual_file} "${out}")
      execute_process(COMMAND diff -u ${GOLDEN} ${actual_file})
      file(REMOVE ${actual_file})
      file(WRITE ${GOLDEN} "${out}")
      message(STATUS "NESTOR_UPDATE_GOLDEN=1: updated ${GOLDEN} (diff above); review it before committing")
    endif()
  else()
    file(WRITE ${GOLDEN} "${out}")
    message(STATUS "NESTOR_UPDATE_GOLDEN=1: created ${GOLDEN}; review it before committing")
  endif()
else()
  if(NOT EXISTS ${GOLDEN})
    message(FATAL_ERROR "missing golden file ${GOLDEN} (create it with NESTOR_UPDATE_GOLDEN=1, then review it)")
  endif()
  file(READ ${GOLDEN} expected)
  if(NOT out STREQUAL expected)
    file(WRITE ${actual_file} "${out}")
    execute_process(COMMAND diff -u ${GOLDEN} ${actual_file})
    message(FATAL_ERROR "output differs from ${GOLDEN} (actual output in ${actual_file})")
  endif()
endif()
if(DEFINED VERIFIED)
  get_filename_component(dir ${VERIFIED} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  file(WRITE ${VERIFIED} "${out}")
endif()
