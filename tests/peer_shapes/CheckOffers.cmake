# Every rewrite that `nestor rewrite --list` offers at a corpus site has a
# golden, and every golden's rewrite is still offered there:
#   cmake -DNESTOR=... -DINPUT=file.cu -DAT=line "-DFLAGS=-- -I..." "-DGOLDEN_REWRITES=a;b" -P CheckOffers.cmake
# A rewrite family is offered when --list prints `<name>: #<rank> ...`; a
# family refused for some variants only (`<name>: not offered for N of its
# variants`) is still offered by its other variants. A new offer without a
# golden fails (apply it, review it, commit it: NESTOR_UPDATE_GOLDEN=1), and
# so does a golden whose rewrite is no longer offered (say why in the corpus).
# A site with no golden is one where nothing is offered (its refusals are
# recorded by the REFUSALS of nestor_peer_shape): an offer there fails too.
cmake_policy(SET CMP0057 NEW) # if(IN_LIST)
separate_arguments(FLAGS)
execute_process(
  COMMAND ${NESTOR} rewrite ${INPUT} --at ${AT} --list ${FLAGS}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--list at line ${AT} failed with exit ${rc}: ${err}")
endif()
string(REGEX MATCHALL "(^|\n)[a-z-]+: #" offered_lines "${out}")
set(offered "")
foreach(l ${offered_lines})
  string(REGEX REPLACE "^\n?([a-z-]+): #$" "\\1" name "${l}")
  list(APPEND offered ${name})
endforeach()
list(REMOVE_DUPLICATES offered)
list(SORT offered)
set(goldens ${GOLDEN_REWRITES})
list(SORT goldens)
set(missing "")
foreach(name ${offered})
  if(NOT name IN_LIST goldens)
    list(APPEND missing ${name})
  endif()
endforeach()
set(stale "")
foreach(name ${goldens})
  if(NOT name IN_LIST offered)
    list(APPEND stale ${name})
  endif()
endforeach()
if(missing OR stale)
  message(FATAL_ERROR "line ${AT} of ${INPUT}: offered [${offered}], goldens [${goldens}]\n"
                      "  offered without a golden: [${missing}]\n  golden no longer offered: [${stale}]\n${out}")
endif()
message(STATUS "line ${AT}: offered and golden: [${offered}]")
