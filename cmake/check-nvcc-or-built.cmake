# An nvcc compile check of a golden that a GPU program in 'all' also compiles
# (cmake/NestorNvccCheck.cmake says why). Inputs:
#   NVCC, FLAGS (list), SOURCE (file to compile), GOLDEN (golden in the source
#   tree), OUTPUT (object to write), TARGET (the GPU program), OBJECTS (its
#   objects, joined with '|').
# Passes without compiling when the build's object of GOLDEN is at least as new
# as GOLDEN: the build compiled exactly this golden. Compiles SOURCE otherwise
# (the golden changed after the build, e.g. NESTOR_UPDATE_GOLDEN=1 just wrote
# it, or the program was not built).
foreach(var NVCC SOURCE GOLDEN OUTPUT TARGET)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check-nvcc-or-built: ${var} is not set")
  endif()
endforeach()

get_filename_component(golden_name "${GOLDEN}" NAME)
string(REPLACE "|" ";" objects "${OBJECTS}")
set(object "")
foreach(candidate ${objects})
  get_filename_component(candidate_name "${candidate}" NAME)
  if(candidate_name STREQUAL "${golden_name}.o")
    set(object "${candidate}")
    break()
  endif()
endforeach()

if(object AND EXISTS "${object}" AND "${object}" IS_NEWER_THAN "${GOLDEN}")
  message("compiled by the build: ${GOLDEN}\n  -> ${object} (GPU program ${TARGET}), not older than the golden; not compiled again")
  return()
endif()

if(NOT object)
  message("the objects of ${TARGET} do not include ${golden_name}.o; compiling with nvcc")
elseif(NOT EXISTS "${object}")
  message("${TARGET} was not built (${object} is missing); compiling with nvcc")
else()
  message("${GOLDEN} is newer than the build's ${object}; compiling with nvcc")
endif()
execute_process(COMMAND ${NVCC} ${FLAGS} -c ${SOURCE} -o ${OUTPUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed (${rc}) on ${SOURCE}")
endif()
