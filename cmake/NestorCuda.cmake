# Helpers shared by every CMake file that builds CUDA code.
#
# GPU tests follow one convention so that CI (no GPU) stays green without
# hiding them: every GPU test command goes through cmake/run-gpu-test.sh,
# whose probe (nestor_device_probe) prints "SKIP: <reason>" and exits 77 when
# there is no CUDA device (ctest: skipped, SKIP_RETURN_CODE 77), and prints
# "FAIL: <reason>" and fails when the driver or runtime failed. With
# NESTOR_EXPECT_GPU=1 (every GPU run sets it) any skip is a failure. Every GPU
# test carries the label `gpu`.

# Included from several directories: directory-scoped results (NESTOR_HAVE_CUDA,
# the CUDA language) must be set in each, so there is no include guard.

# Resolve nvcc before enable_language(CUDA) so a toolkit outside PATH is found.
if(NOT CMAKE_CUDA_COMPILER)
  if(DEFINED ENV{CUDA_PATH} AND EXISTS "$ENV{CUDA_PATH}/bin/nvcc")
    set(CMAKE_CUDA_COMPILER "$ENV{CUDA_PATH}/bin/nvcc")
  elseif(EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
endif()
include(CheckLanguage)
if(NESTOR_ENABLE_CUDA)
  check_language(CUDA)
endif()
if(NESTOR_ENABLE_CUDA AND CMAKE_CUDA_COMPILER)
  # nvcc 13 takes C++20, but CMake 3.25 does not know it; rewritten user code
  # is usually C++17 anyway.
  if(NOT DEFINED CMAKE_CUDA_STANDARD)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # Hopper is what the project measures on; override with -DCMAKE_CUDA_ARCHITECTURES=...
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  # CMake 3.25 has no CUDA::cudadevrt target; CMake links cudadevrt itself for
  # targets with CUDA_SEPARABLE_COMPILATION, so an empty stand-in suffices.
  if(NOT TARGET CUDA::cudadevrt)
    add_library(CUDA::cudadevrt INTERFACE IMPORTED GLOBAL)
  endif()
  set(NESTOR_HAVE_CUDA ON)
  # GPU test programs, runtime tests and benches are built wherever nvcc is
  # (compile and link only where there is no GPU: CI then fails on a change
  # that breaks device code); their tests skip at run time without a device.
  # -DNESTOR_BUILD_GPU_PROGRAMS=OFF leaves them out of 'all' (a quick local
  # build); `cmake --build . --target <program>` still builds any of them.
  if(NOT DEFINED NESTOR_BUILD_GPU_PROGRAMS)
    set(NESTOR_BUILD_GPU_PROGRAMS ON CACHE BOOL
        "Build GPU test programs, runtime tests and benches as part of 'all' (default ON wherever nvcc is)")
    message(STATUS "Nestor: GPU test programs and benches in 'all': ${NESTOR_BUILD_GPU_PROGRAMS}")
  endif()
  if(NOT TARGET nestor_device_probe)
    add_executable(nestor_device_probe ${PROJECT_SOURCE_DIR}/cmake/device_probe.cpp)
    target_include_directories(nestor_device_probe PRIVATE ${PROJECT_SOURCE_DIR}/runtime/include)
    target_link_libraries(nestor_device_probe PRIVATE CUDA::cudart ${CMAKE_DL_LIBS})
  endif()
  # Prefix of every GPU test command: skip (77, with the reason) without a device.
  set(NESTOR_GPU_TEST_LAUNCHER sh ${PROJECT_SOURCE_DIR}/cmake/run-gpu-test.sh $<TARGET_FILE:nestor_device_probe>)
else()
  set(NESTOR_HAVE_CUDA OFF)
  message(STATUS "Nestor: CUDA disabled or no nvcc found; CUDA tests and benches are skipped")
endif()

# nestor_add_gpu_test(NAME SOURCES a.cu [b.cu] [RDC] [LIBS ...])
#   Builds a CUDA test executable and registers it with ctest under label `gpu`.
#   RDC turns on relocatable device code and links cudadevrt (dynamic parallelism).
if(COMMAND nestor_add_gpu_test)
  return()
endif()

include(${CMAKE_CURRENT_LIST_DIR}/NestorNvccCheck.cmake)

# nestor_gpu_program(TARGET): a program that only a GPU can run; left out of
# 'all' when NESTOR_BUILD_GPU_PROGRAMS is OFF. In 'all', its .cu sources are
# remembered so that the nvcc check of a golden it compiles does not compile
# that golden a second time (cmake/NestorNvccCheck.cmake).
function(nestor_gpu_program target)
  if(NOT NESTOR_BUILD_GPU_PROGRAMS)
    set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL TRUE)
  else()
    nestor_record_built_cuda_sources(${target})
  endif()
endfunction()

function(nestor_add_gpu_test name)
  cmake_parse_arguments(ARG "RDC" "" "SOURCES;LIBS;ARGS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE nestor_runtime ${ARG_LIBS})
  if(ARG_RDC)
    set_target_properties(${name} PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
    target_link_libraries(${name} PRIVATE CUDA::cudadevrt)
  endif()
  nestor_gpu_program(${name})
  add_test(NAME ${name} COMMAND ${NESTOR_GPU_TEST_LAUNCHER} $<TARGET_FILE:${name}> ${ARG_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()
