// Operator functors for the reduction and scan clauses of CUDA-NP
// (`reduction(op:var)`, `scan(op:var)`) and warp-shuffle helpers shared by
// np.cuh, cte.cuh and subwarp.cuh.
//
// Every functor has
//   template <class T> static constexpr T identity();   // e such that op(e, x) == x
//   template <class T> constexpr T operator()(T a, T b) const;
// and is usable on host and device, so tests and rewritten host fallbacks can
// compute the same reference. All of them are associative and commutative
// (floating-point + and * only up to rounding: parallel results may differ
// from the sequential order in the last bits).
#pragma once

#include <cstdio>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

#if defined(__CUDACC__)
#define NESTOR_HD __host__ __device__ __forceinline__
#else
#define NESTOR_HD inline
#endif

namespace nestor::op {

// Operators defined for every arithmetic type (int, unsigned, long long,
// float, double, ...).
struct add {
  template <class T> NESTOR_HD static constexpr T identity() { return T(0); }
  template <class T> NESTOR_HD constexpr T operator()(T a, T b) const { return a + b; }
};

struct mul {
  template <class T> NESTOR_HD static constexpr T identity() { return T(1); }
  template <class T> NESTOR_HD constexpr T operator()(T a, T b) const { return a * b; }
};

// max/min use -inf/+inf as identity for floating point, so that an empty
// slave (no iterations) never changes the result; integers use lowest/max.
struct max {
  template <class T> NESTOR_HD static constexpr T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) {
      return -cuda::std::numeric_limits<T>::infinity();
    } else {
      return cuda::std::numeric_limits<T>::lowest();
    }
  }
  template <class T> NESTOR_HD constexpr T operator()(T a, T b) const { return a < b ? b : a; }
};

struct min {
  template <class T> NESTOR_HD static constexpr T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity) {
      return cuda::std::numeric_limits<T>::infinity();
    } else {
      return cuda::std::numeric_limits<T>::max();
    }
  }
  template <class T> NESTOR_HD constexpr T operator()(T a, T b) const { return b < a ? b : a; }
};

// Bitwise operators exist for integral types only, exactly like C's & | ^;
// using them with float/double is a compile-time error with this message.
#define NESTOR_REQUIRE_INTEGRAL(T, opname)                                              \
  static_assert(cuda::std::is_integral_v<T>,                                           \
                "nestor::op::" opname " is defined for integral types only (as in C)")

struct bit_and {
  template <class T> NESTOR_HD static constexpr T identity() {
    NESTOR_REQUIRE_INTEGRAL(T, "bit_and");
    return static_cast<T>(~T(0));
  }
  template <class T> NESTOR_HD constexpr T operator()(T a, T b) const {
    NESTOR_REQUIRE_INTEGRAL(T, "bit_and");
    return a & b;
  }
};

struct bit_or {
  template <class T> NESTOR_HD static constexpr T identity() {
    NESTOR_REQUIRE_INTEGRAL(T, "bit_or");
    return T(0);
  }
  template <class T> NESTOR_HD constexpr T operator()(T a, T b) const {
    NESTOR_REQUIRE_INTEGRAL(T, "bit_or");
    return a | b;
  }
};

struct bit_xor {
  template <class T> NESTOR_HD static constexpr T identity() {
    NESTOR_REQUIRE_INTEGRAL(T, "bit_xor");
    return T(0);
  }
  template <class T> NESTOR_HD constexpr T operator()(T a, T b) const {
    NESTOR_REQUIRE_INTEGRAL(T, "bit_xor");
    return a ^ b;
  }
};

#undef NESTOR_REQUIRE_INTEGRAL

// && and || follow C: operands are tested against zero and the result is 0 or 1
// in the operand type (so `int ok = 1; ... reduction(&&:ok)` keeps its type).
struct logical_and {
  template <class T> NESTOR_HD static constexpr T identity() { return T(1); }
  template <class T> NESTOR_HD constexpr T operator()(T a, T b) const {
    return (a != T(0) && b != T(0)) ? T(1) : T(0);
  }
};

struct logical_or {
  template <class T> NESTOR_HD static constexpr T identity() { return T(0); }
  template <class T> NESTOR_HD constexpr T operator()(T a, T b) const {
    return (a != T(0) || b != T(0)) ? T(1) : T(0);
  }
};

} // namespace nestor::op

// Device-side precondition checks: a violated contract (wrong block shape for
// a compile-time layout, ...) prints what is wrong and traps, instead of
// silently computing garbage. Define NESTOR_DEVICE_CHECKS=0 to compile them out.
#ifndef NESTOR_DEVICE_CHECKS
#define NESTOR_DEVICE_CHECKS 1
#endif
#define NESTOR_DEVICE_REQUIRE(cond, msg)                                                   \
  do {                                                                                     \
    if (NESTOR_DEVICE_CHECKS && !(cond)) {                                                 \
      printf("nestor runtime: precondition failed: %s [%s] at %s:%d (block %u,%u,%u thread %u,%u,%u)\n", \
             msg, #cond, __FILE__, __LINE__, blockIdx.x, blockIdx.y, blockIdx.z,          \
             threadIdx.x, threadIdx.y, threadIdx.z);                                       \
      __trap();                                                                            \
    }                                                                                      \
  } while (0)

namespace nestor::detail {

#if defined(__CUDACC__)
// Warp shuffles of any trivially copyable type. Arithmetic types map to the
// native overloads; anything else (e.g. a struct a CTE reduction works on) is
// moved in 32-bit words, which is what the hardware shuffles anyway.
template <class T> struct shfl_words {
  static_assert(cuda::std::is_trivially_copyable_v<T>,
                "nestor: values exchanged between threads must be trivially copyable");
  static constexpr int count = (sizeof(T) + sizeof(unsigned) - 1) / sizeof(unsigned);
  unsigned w[count];
};

template <class T> inline constexpr bool native_shfl_v =
    cuda::std::is_same_v<T, int> || cuda::std::is_same_v<T, unsigned> ||
    cuda::std::is_same_v<T, long> || cuda::std::is_same_v<T, unsigned long> ||
    cuda::std::is_same_v<T, long long> || cuda::std::is_same_v<T, unsigned long long> ||
    cuda::std::is_same_v<T, float> || cuda::std::is_same_v<T, double>;

template <class T, class Shfl> __device__ __forceinline__ T shfl_any(T v, Shfl shfl) {
  if constexpr (native_shfl_v<T>) {
    return shfl(v);
  } else {
    shfl_words<T> in{}, out{};
    memcpy(&in, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < shfl_words<T>::count; ++k) out.w[k] = shfl(in.w[k]);
    T r;
    memcpy(&r, &out, sizeof(T));
    return r;
  }
}

template <class T>
__device__ __forceinline__ T shfl_idx(unsigned mask, T v, int src, int width = 32) {
  return shfl_any(v, [&](auto x) { return __shfl_sync(mask, x, src, width); });
}
template <class T>
__device__ __forceinline__ T shfl_up(unsigned mask, T v, unsigned delta, int width = 32) {
  return shfl_any(v, [&](auto x) { return __shfl_up_sync(mask, x, delta, width); });
}
template <class T>
__device__ __forceinline__ T shfl_down(unsigned mask, T v, unsigned delta, int width = 32) {
  return shfl_any(v, [&](auto x) { return __shfl_down_sync(mask, x, delta, width); });
}
template <class T>
__device__ __forceinline__ T shfl_xor(unsigned mask, T v, int lane_mask, int width = 32) {
  return shfl_any(v, [&](auto x) { return __shfl_xor_sync(mask, x, lane_mask, width); });
}

// Linear thread index inside the block (x fastest), the index warps are formed from.
__device__ __forceinline__ unsigned linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ unsigned lane_id() { return linear_tid() & 31u; }
// Threads of the calling block.
__device__ __forceinline__ unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

// A device launch of one block's work (dpar-opt: `launch(batch)` launches the
// child grid), made by the calling thread after the batch is written: true
// when the launch was made. Built without -rdc (no __CUDACC_RDC__) nothing can
// be launched from the device, and the rewritten launch is compiled out too:
// false, and the block does the work itself.
template <class Launch, class Batch> __device__ bool try_device_launch(Launch &launch, const Batch &batch) {
#if defined(__CUDACC_RDC__)
  __threadfence(); // the batch is visible to the child grid
  launch(batch);
  return cudaGetLastError() == cudaSuccess;
#else
  (void)launch;
  (void)batch;
  return false;
#endif
}
#endif

} // namespace nestor::detail
