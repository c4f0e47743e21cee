# Helpers shared by every CMake file that builds CUDA code.
#
# GPU tests follow one convention so that CI (no GPU) stays green without
# hiding them: the test binary checks for a device first, prints
# "SKIP: <reason>" and exits 77 when there is none; ctest reports that as
# skipped (SKIP_RETURN_CODE 77). Every GPU test carries the label `gpu`.

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
function(nestor_add_gpu_test name)
  cmake_parse_arguments(ARG "RDC" "" "SOURCES;LIBS;ARGS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE nestor_runtime ${ARG_LIBS})
  if(ARG_RDC)
    set_target_properties(${name} PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
    target_link_libraries(${name} PRIVATE CUDA::cudadevrt)
  endif()
  add_test(NAME ${name} COMMAND ${name} ${ARG_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()
