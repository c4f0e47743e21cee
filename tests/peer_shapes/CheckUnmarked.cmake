# No rewrite is offered at a loop or launch of a corpus program that carries
# no `// peer-site:` marker: an offer there would have no golden, no nvcc
# check and no GPU test.
#   cmake -DNESTOR=... -DINPUT=file.cu "-DFLAGS=-- -I..." "-DMARKED=12;40" -P CheckUnmarked.cmake
cmake_policy(SET CMP0057 NEW) # if(IN_LIST)
separate_arguments(FLAGS)
execute_process(COMMAND ${NESTOR} analyze ${INPUT} ${FLAGS}
  OUTPUT_VARIABLE model ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nestor analyze failed with exit ${rc}: ${err}")
endif()
string(REGEX MATCHALL "\n  (loop|launch) line [0-9]+" entries "${model}")
if(NOT entries)
  message(FATAL_ERROR "nestor analyze lists no loop or launch in ${INPUT}:\n${model}")
endif()
set(checked "")
foreach(entry ${entries})
  string(REGEX REPLACE "^\n  (loop|launch) line ([0-9]+)$" "\\2" line "${entry}")
  if(line IN_LIST MARKED OR line IN_LIST checked)
    continue()
  endif()
  list(APPEND checked ${line})
  execute_process(COMMAND ${NESTOR} rewrite ${INPUT} --at ${line} --list ${FLAGS}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "--list at line ${line} failed with exit ${rc}: ${err}")
  endif()
  if(out MATCHES "(^|\n)[a-z-]+: #")
    message(FATAL_ERROR "line ${line} of ${INPUT} has offers but no `// peer-site:` marker:\n${out}")
  endif()
endforeach()
message(STATUS "no offer at the unmarked lines [${checked}]")
