// Helpers shared by the runtime-header GPU tests: seeded inputs per operator,
// CPU references, tolerant comparison and failure accounting.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <nestor/gpu_test.cuh>
#include <nestor/ops.cuh>

// NESTOR_EXPECT(ck, got, want, label-expression): label built only on failure.
#define NESTOR_EXPECT(ck, got, want, what) (ck).expect_lazy((got), (want), [&]() { return std::string(what); })
#define NESTOR_EXPECT_TRUE(ck, ok, what) (ck).expect_true_lazy((ok), [&]() { return std::string(what); })

namespace nestor::test {

// Counts failed checks and prints the first few with their context.
struct checker {
  long long checks = 0;
  long long failures = 0;
  template <class T> static std::string show(T v) {
    if constexpr (std::is_floating_point_v<T>) {
      char b[64];
      std::snprintf(b, sizeof b, "%.17g", double(v));
      return b;
    } else {
      return std::to_string(v);
    }
  }
  // Floating point: relative tolerance (float 1e-4, double 1e-10, both far
  // below the change a missing or duplicated element makes with the inputs
  // below); integers and max/min/logical results: exact.
  template <class T> bool close(T got, T want) const {
    if constexpr (std::is_floating_point_v<T>) {
      const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-10;
      const double scale = std::fmax(1.0, std::fabs(double(want)));
      return std::fabs(double(got) - double(want)) <= tol * scale;
    } else {
      return got == want;
    }
  }
  // `what` is a callable producing the label, evaluated only on failure (the
  // tests make millions of checks).
  template <class T, class What> void expect_lazy(T got, T want, What&& what) {
    ++checks;
    if (!close(got, want)) {
      if (failures < 20)
        std::printf("FAIL %s: got %s, want %s\n", std::string(what()).c_str(), show(got).c_str(), show(want).c_str());
      ++failures;
    }
  }
  template <class What> void expect_true_lazy(bool ok, What&& what) {
    ++checks;
    if (!ok) {
      if (failures < 20) std::printf("FAIL %s\n", std::string(what()).c_str());
      ++failures;
    }
  }
  int finish(const char* name) const {
    std::printf("%s: %lld checks, %lld failures\n", name, checks, failures);
    if (checks == 0) {
      std::printf("FAIL %s: no checks ran\n", name);
      return 1;
    }
    return failures == 0 ? 0 : 1;
  }
};

template <class Op> const char* op_name();
template <> inline const char* op_name<op::add>() { return "add"; }
template <> inline const char* op_name<op::mul>() { return "mul"; }
template <> inline const char* op_name<op::max>() { return "max"; }
template <> inline const char* op_name<op::min>() { return "min"; }
template <> inline const char* op_name<op::bit_and>() { return "bit_and"; }
template <> inline const char* op_name<op::bit_or>() { return "bit_or"; }
template <> inline const char* op_name<op::bit_xor>() { return "bit_xor"; }
template <> inline const char* op_name<op::logical_and>() { return "logical_and"; }
template <> inline const char* op_name<op::logical_or>() { return "logical_or"; }

template <class T> const char* type_name() {
  if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, unsigned>) return "unsigned";
  else if constexpr (std::is_same_v<T, long long>) return "long long";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return "?";
}

// Inputs for which every element matters to the result (so a dropped or
// doubled element is detected) and nothing overflows in a signed type.
template <class Op, class T> T random_input(std::mt19937_64& rng) {
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  constexpr int bits = int(sizeof(T) * 8);
  if constexpr (std::is_same_v<Op, op::add>) {
    if constexpr (std::is_floating_point_v<T>) return T(uni(0.5, 1.5));
    else if constexpr (std::is_signed_v<T>) return T(pick(2001) - 1000);
    else return T(pick(2001));
  } else if constexpr (std::is_same_v<Op, op::mul>) {
    if constexpr (std::is_floating_point_v<T>) return T(pick(2) ? uni(0.9, 0.97) : uni(1.03, 1.1));
    else {
      int r = pick(100);
      if constexpr (std::is_signed_v<T>) return T(r < 3 ? 2 : (r < 50 ? -1 : 1));
      else return T(r < 3 ? 3 : 1);
    }
  } else if constexpr (std::is_same_v<Op, op::max> || std::is_same_v<Op, op::min>) {
    if constexpr (std::is_floating_point_v<T>) return T(uni(-1000.0, 1000.0));
    else if constexpr (std::is_signed_v<T>) return T(static_cast<long long>(rng() % 2000001ull) - 1000000ll) * T(sizeof(T) > 4 ? 1000000 : 1);
    else return T(rng());
  } else if constexpr (std::is_same_v<Op, op::bit_and>) {
    return pick(4) == 0 ? T(~(T(1) << pick(bits))) : T(~T(0));
  } else if constexpr (std::is_same_v<Op, op::bit_or>) {
    return pick(4) == 0 ? T(T(1) << pick(bits)) : T(0);
  } else if constexpr (std::is_same_v<Op, op::bit_xor>) {
    return T(rng());
  } else if constexpr (std::is_same_v<Op, op::logical_and>) {
    return pick(40) == 0 ? T(0) : T(1 + pick(5));
  } else {
    static_assert(std::is_same_v<Op, op::logical_or>);
    return pick(40) == 0 ? T(1 + pick(5)) : T(0);
  }
}

// A non-identity start value (the live-in value of the reduction variable).
template <class Op, class T> T start_value() {
  if constexpr (std::is_same_v<Op, op::add>) return T(3);
  else if constexpr (std::is_same_v<Op, op::mul>) return T(1);
  else if constexpr (std::is_same_v<Op, op::max>) return T(-5);
  else if constexpr (std::is_same_v<Op, op::min>) return T(5);
  else if constexpr (std::is_same_v<Op, op::bit_and>) return T(~T(0));
  else if constexpr (std::is_same_v<Op, op::bit_or>) return T(0x10);
  else if constexpr (std::is_same_v<Op, op::bit_xor>) return T(0x5a);
  else if constexpr (std::is_same_v<Op, op::logical_and>) return T(1);
  else return T(0);
}

template <class T> T* to_device(const std::vector<T>& h) {
  T* d = nullptr;
  NESTOR_CUDA_CHECK(cudaMalloc(&d, std::max<size_t>(1, h.size()) * sizeof(T)));
  if (!h.empty()) NESTOR_CUDA_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T> T* device_zeros(size_t n) {
  T* d = nullptr;
  NESTOR_CUDA_CHECK(cudaMalloc(&d, std::max<size_t>(1, n) * sizeof(T)));
  NESTOR_CUDA_CHECK(cudaMemset(d, 0, std::max<size_t>(1, n) * sizeof(T)));
  return d;
}
template <class T> std::vector<T> to_host(const T* d, size_t n) {
  std::vector<T> h(n);
  if (n) NESTOR_CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

} // namespace nestor::test
