// Minimal assertion helpers for the dp.cuh GPU tests (no GoogleTest on the
// GPU machine): every failed check is printed and counted; main returns
// nestor_dp_test::finish(), non-zero when any check failed.
#pragma once
#include <cstdio>

namespace nestor_dp_test {
inline int& failures() {
  static int n = 0;
  return n;
}
inline int& checks() {
  static int n = 0;
  return n;
}
inline int finish(const char* name) {
  if (failures()) {
    std::printf("FAIL %s: %d of %d checks failed\n", name, failures(), checks());
    return 1;
  }
  std::printf("PASS %s: %d checks\n", name, checks());
  return 0;
}
}  // namespace nestor_dp_test

#define CHECK(cond)                                                                       \
  do {                                                                                    \
    ++nestor_dp_test::checks();                                                           \
    if (!(cond)) {                                                                        \
      ++nestor_dp_test::failures();                                                       \
      std::printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                \
    }                                                                                     \
  } while (0)

#define CHECK_EQ(a, b)                                                                    \
  do {                                                                                    \
    ++nestor_dp_test::checks();                                                           \
    const auto va_ = (a);                                                                 \
    const auto vb_ = (b);                                                                 \
    if (!(va_ == vb_)) {                                                                  \
      ++nestor_dp_test::failures();                                                       \
      std::printf("%s:%d: check failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, #a, \
                  #b, static_cast<long long>(va_), static_cast<long long>(vb_));          \
    }                                                                                     \
  } while (0)
