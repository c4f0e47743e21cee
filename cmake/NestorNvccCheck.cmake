# nvcc compile checks of rewrite outputs, without compiling a file twice.
#
#   nestor_nvcc_check(NAME <test> SOURCE <file> GOLDEN <golden> OUTPUT <object>
#                     FLAGS <nvcc flags...> LABELS <labels...>
#                     [FIXTURES_REQUIRED <fixture>] [DEPENDS <tests...>])
#
# SOURCE is the file to compile (the copy that the golden test just verified,
# or the golden itself); GOLDEN is the golden file in the source tree.
#
# Most goldens are also the source of a GPU test program (tests/gpu/...), and
# with NESTOR_BUILD_GPU_PROGRAMS=ON those programs are built by 'all' before
# any test runs (CI has nvcc and no GPU: compile and link only). Compiling such
# a golden again in its check doubles the most expensive part of `make test` on
# a 2-core CI machine, so the check is registered at the end of configuration,
# when every GPU program is known:
#   - the golden is compiled by a GPU program in 'all' (and that program adds
#     no compile definitions of its own): the check passes when the build's
#     object of that golden is at least as new as the golden, and compiles
#     SOURCE with nvcc when it is not (a golden just rewritten with
#     NESTOR_UPDATE_GOLDEN=1 is newer than the object);
#   - otherwise: the check compiles SOURCE with nvcc.
# Either way a golden that does not compile fails CI: in the build, or here.
include_guard(GLOBAL)

# Called by nestor_gpu_program for every program in 'all': remembers which
# target compiles which .cu file.
function(nestor_record_built_cuda_sources target)
  get_target_property(srcs ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  foreach(src ${srcs})
    if(NOT src MATCHES "\\.cu$")
      continue()
    endif()
    if(NOT IS_ABSOLUTE "${src}")
      set(src "${dir}/${src}")
    endif()
    file(REAL_PATH "${src}" src)
    set_property(GLOBAL APPEND PROPERTY NESTOR_BUILT_CUDA_SOURCES "${src}")
    set_property(GLOBAL PROPERTY "NESTOR_BUILT_CUDA_SOURCE_TARGET:${src}" ${target})
  endforeach()
endfunction()

function(nestor_nvcc_check)
  cmake_parse_arguments(ARG "" "NAME;SOURCE;GOLDEN;OUTPUT;FIXTURES_REQUIRED" "FLAGS;LABELS;DEPENDS" ${ARGN})
  foreach(required NAME SOURCE GOLDEN OUTPUT)
    if(NOT ARG_${required})
      message(FATAL_ERROR "nestor_nvcc_check: ${required} is missing")
    endif()
  endforeach()
  set(key "NESTOR_NVCC_CHECK:${ARG_NAME}")
  foreach(field SOURCE GOLDEN OUTPUT FIXTURES_REQUIRED FLAGS LABELS DEPENDS)
    set_property(GLOBAL PROPERTY "${key}:${field}" "${ARG_${field}}")
  endforeach()
  set_property(GLOBAL APPEND PROPERTY NESTOR_NVCC_CHECKS ${ARG_NAME})
  get_property(scheduled GLOBAL PROPERTY NESTOR_NVCC_CHECKS_SCHEDULED)
  if(NOT scheduled)
    set_property(GLOBAL PROPERTY NESTOR_NVCC_CHECKS_SCHEDULED TRUE)
    cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _nestor_register_nvcc_checks)
  endif()
endfunction()

function(_nestor_register_nvcc_checks)
  get_property(names GLOBAL PROPERTY NESTOR_NVCC_CHECKS)
  set(reused 0)
  set(compiled 0)
  foreach(name ${names})
    set(key "NESTOR_NVCC_CHECK:${name}")
    foreach(field SOURCE GOLDEN OUTPUT FIXTURES_REQUIRED FLAGS LABELS DEPENDS)
      get_property(${field} GLOBAL PROPERTY "${key}:${field}")
    endforeach()
    get_filename_component(outdir "${OUTPUT}" DIRECTORY)
    file(MAKE_DIRECTORY "${outdir}")
    file(REAL_PATH "${GOLDEN}" golden_real)
    get_property(target GLOBAL PROPERTY "NESTOR_BUILT_CUDA_SOURCE_TARGET:${golden_real}")
    if(target AND TARGET ${target})
      get_target_property(defs ${target} COMPILE_DEFINITIONS)
      if(defs)
        set(target "")
      endif()
    endif()
    if(target)
      math(EXPR reused "${reused} + 1")
      add_test(NAME ${name}
        COMMAND ${CMAKE_COMMAND} -DNVCC=${NESTOR_NVCC} "-DFLAGS=${FLAGS}" -DSOURCE=${SOURCE}
                -DGOLDEN=${GOLDEN} -DOUTPUT=${OUTPUT} -DTARGET=${target}
                "-DOBJECTS=$<JOIN:$<TARGET_OBJECTS:${target}>,|>"
                -P ${PROJECT_SOURCE_DIR}/cmake/check-nvcc-or-built.cmake)
    else()
      math(EXPR compiled "${compiled} + 1")
      add_test(NAME ${name} COMMAND ${NESTOR_NVCC} ${FLAGS} -c ${SOURCE} -o ${OUTPUT})
    endif()
    set_tests_properties(${name} PROPERTIES LABELS "${LABELS}")
    if(FIXTURES_REQUIRED)
      set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED "${FIXTURES_REQUIRED}")
    endif()
    if(DEPENDS)
      set_tests_properties(${name} PROPERTIES DEPENDS "${DEPENDS}")
    endif()
  endforeach()
  message(STATUS "Nestor: nvcc checks: ${compiled} compile at test time, ${reused} reuse a GPU program's compile of the same golden")
endfunction()
