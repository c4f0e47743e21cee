# nestor_add_equivalence_test(NAME
#     ORIGINAL a.cu REWRITTEN b.cu
#     [ARGS ...]                 arguments given to both programs
#     [ORIGINAL_ARGS ...] [REWRITTEN_ARGS ...]
#     [DEFINES ...]              -D definitions for both builds (NAME=VALUE)
#     [ORIGINAL_DEFINES ...] [REWRITTEN_DEFINES ...]
#     [EXPECT_DIFFERENT])        pass only when the outputs differ
#
# Builds both programs the way rewritten code is built (nvcc -rdc=true
# -arch=sm_90 -lcudadevrt, with runtime/include and examples/graph on the
# include path), runs both on the same inputs with `--out FILE` appended and
# compares the files exactly (nestor_equiv_check). Registered under label `gpu`;
# without a device the checker exits 77 and ctest reports the test skipped.
# Programs are built once per (source, defines), however many tests use them.
#
# Sources may be given relative to the top of the repository (e.g. golden files
# under rewriters/*/tests/golden/) or as absolute paths.
include_guard(GLOBAL)

set(NESTOR_EQUIV_DIR ${CMAKE_CURRENT_LIST_DIR})

function(_nestor_equiv_program out_target source)
  set(defines ${ARGN})
  if(NOT IS_ABSOLUTE "${source}")
    set(source "${PROJECT_SOURCE_DIR}/${source}")
  endif()
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "nestor_add_equivalence_test: source '${source}' does not exist")
  endif()
  string(SHA1 key "${source};${defines}")
  string(SUBSTRING "${key}" 0 10 key)
  get_filename_component(stem "${source}" NAME_WLE)
  string(MAKE_C_IDENTIFIER "${stem}" stem)
  set(target equiv_prog_${stem}_${key})
  if(NOT TARGET ${target})
    add_executable(${target} "${source}")
    # cudadevrt comes with CMake's CUDA runtime link options for separable code.
    target_link_libraries(${target} PRIVATE nestor_runtime)
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/examples/graph)
    target_compile_definitions(${target} PRIVATE ${defines})
    set_target_properties(${target} PROPERTIES
      CUDA_SEPARABLE_COMPILATION ON
      CUDA_ARCHITECTURES 90
      CUDA_STANDARD 17
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/gpu/programs)
    nestor_gpu_program(${target})
  endif()
  set(${out_target} ${target} PARENT_SCOPE)
endfunction()

function(nestor_add_equivalence_test name)
  cmake_parse_arguments(EQ "EXPECT_DIFFERENT" "ORIGINAL;REWRITTEN"
    "ARGS;ORIGINAL_ARGS;REWRITTEN_ARGS;DEFINES;ORIGINAL_DEFINES;REWRITTEN_DEFINES" ${ARGN})
  if(NOT EQ_ORIGINAL OR NOT EQ_REWRITTEN)
    message(FATAL_ERROR "nestor_add_equivalence_test(${name}): ORIGINAL and REWRITTEN are required")
  endif()
  if(EQ_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "nestor_add_equivalence_test(${name}): unexpected arguments ${EQ_UNPARSED_ARGUMENTS}")
  endif()
  _nestor_equiv_program(original_target "${EQ_ORIGINAL}" ${EQ_DEFINES} ${EQ_ORIGINAL_DEFINES})
  _nestor_equiv_program(rewritten_target "${EQ_REWRITTEN}" ${EQ_DEFINES} ${EQ_REWRITTEN_DEFINES})
  set(side_args)
  foreach(a ${EQ_ORIGINAL_ARGS})
    list(APPEND side_args --original-arg ${a})
  endforeach()
  foreach(a ${EQ_REWRITTEN_ARGS})
    list(APPEND side_args --rewritten-arg ${a})
  endforeach()
  if(EQ_EXPECT_DIFFERENT)
    list(APPEND side_args --expect-different)
  endif()
  set(workdir ${CMAKE_BINARY_DIR}/tests/gpu/work/${name})
  file(MAKE_DIRECTORY ${workdir})
  add_test(NAME ${name}
    COMMAND ${NESTOR_GPU_TEST_LAUNCHER} $<TARGET_FILE:nestor_equiv_check> --workdir ${workdir}
            --original $<TARGET_FILE:${original_target}>
            --rewritten $<TARGET_FILE:${rewritten_target}>
            ${side_args} -- ${EQ_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()

# The input matrix every graph program is checked on: a power-law graph, a
# near-regular graph and a one-vertex graph. Every generated graph contains
# zero-degree vertices and a hub whose degree needs more than one child block
# in every dimension (examples/graph/graph.h); sssp's child grid is 2-D.
set(NESTOR_GRAPH_INPUTS powerlaw regular single)
set(NESTOR_GRAPH_INPUT_powerlaw --graph powerlaw --vertices 20000 --degree 16 --seed 7 --reps 1)
set(NESTOR_GRAPH_INPUT_regular --graph regular --vertices 20000 --degree 8 --seed 3 --reps 1)
set(NESTOR_GRAPH_INPUT_single --graph powerlaw --vertices 1 --seed 5 --reps 1)

# nestor_add_graph_equivalence_suite(PREFIX ORIGINAL a.cu REWRITTEN b.cu [DEFINES ...])
#   One equivalence test per input of NESTOR_GRAPH_INPUTS, named PREFIX_<input>.
function(nestor_add_graph_equivalence_suite prefix)
  cmake_parse_arguments(S "" "ORIGINAL;REWRITTEN" "DEFINES;REWRITTEN_DEFINES" ${ARGN})
  foreach(input ${NESTOR_GRAPH_INPUTS})
    nestor_add_equivalence_test(${prefix}_${input}
      ORIGINAL ${S_ORIGINAL} REWRITTEN ${S_REWRITTEN}
      DEFINES ${S_DEFINES} REWRITTEN_DEFINES ${S_REWRITTEN_DEFINES}
      ARGS ${NESTOR_GRAPH_INPUT_${input}})
  endforeach()
endfunction()

# nestor_rewrite_gpu_also_tests(<case> <test name> ORIGINAL a.cu REWRITTEN b.cu [ARGS ...]):
# the stress runs a rewrite case asks for (nestor_rewrite_case GPU_ALSO
# "<suffix>|NAME=VALUE|..."): one equivalence test <test name>_<suffix> each,
# the rewritten program built with those definitions. The harness that runs a
# group's goldens calls it, so that a GPU_ALSO no harness runs is a configure
# error (nestor_rewrite_check_gpu_also).
function(nestor_rewrite_gpu_also_tests case name)
  cmake_parse_arguments(ALSO "" "ORIGINAL;REWRITTEN" "ARGS" ${ARGN})
  get_property(also GLOBAL PROPERTY "NESTOR_REWRITE_GOLDEN:${case}:GPU_ALSO")
  set_property(GLOBAL PROPERTY "NESTOR_REWRITE_GOLDEN:${case}:GPU_ALSO_RUN" TRUE)
  foreach(entry ${also})
    string(REPLACE "|" ";" defines "${entry}")
    list(POP_FRONT defines suffix)
    nestor_add_equivalence_test(${name}_${suffix} ORIGINAL ${ALSO_ORIGINAL} REWRITTEN ${ALSO_REWRITTEN}
      REWRITTEN_DEFINES ${defines} ARGS ${ALSO_ARGS})
  endforeach()
endfunction()

function(nestor_rewrite_check_gpu_also)
  get_property(names GLOBAL PROPERTY NESTOR_REWRITE_GOLDENS)
  foreach(name ${names})
    get_property(also GLOBAL PROPERTY "NESTOR_REWRITE_GOLDEN:${name}:GPU_ALSO")
    get_property(run GLOBAL PROPERTY "NESTOR_REWRITE_GOLDEN:${name}:GPU_ALSO_RUN")
    if(also AND NOT run)
      message(FATAL_ERROR "rewrite case '${name}' asks for GPU_ALSO runs, but no GPU harness of tests/gpu runs its group")
    endif()
  endforeach()
endfunction()
