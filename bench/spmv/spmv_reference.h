// bench/spmv's correctness check: every result y (the original's and each
// variant's) against a float64 reference computed on the host, row by row,
// with a tolerance scaled by the row's magnitude:
//
//   |y[r] - ref[r]| <= kRowTolerance * sum_j |a_rj * x_j|      (kRowTolerance = 1e-5)
//
// (an empty row must be exactly 0). Float32 rounding of a sum of L terms is
// bounded by about L * 2^-24 * sum |terms| and in practice (random signs)
// stays near 2^-24 * sum |terms| whatever the order of the additions, so the
// bound holds for the sequential loop and for every reassociation of it (the
// variants split rows over threads and blocks), with a wide margin, and a
// row off by a term of its own size fails on rows of up to ~10^4 terms. One
// absolute bound (1e-3 * max(1, |y|)) does not work for rows of ~350k terms
// whose sum nearly cancels: two correct float32 orders differ by more.
#pragma once
#include "loops_harness.cuh"

#include <cmath>
#include <cstdio>
#include <vector>

namespace spmv {

constexpr double kRowTolerance = 1e-5;

struct Reference {
  std::vector<double> y;      ///< sum_j a_rj x_j in float64
  std::vector<double> absSum; ///< sum_j |a_rj x_j|
};

inline Reference reference(const loops::Csr &a, const std::vector<float> &x) {
  Reference r;
  const size_t rows = a.rowptr.size() - 1;
  r.y.assign(rows, 0.0);
  r.absSum.assign(rows, 0.0);
  for (size_t i = 0; i < rows; ++i) {
    double s = 0, m = 0;
    for (int j = a.rowptr[i]; j < a.rowptr[i + 1]; ++j) {
      const double t = double(a.val[size_t(j)]) * double(x[size_t(a.col[size_t(j)])]);
      s += t;
      m += std::fabs(t);
    }
    r.y[i] = s;
    r.absSum[i] = m;
  }
  return r;
}

struct Verdict {
  size_t bad = 0;
  double worst = 0; ///< max over rows of |y - ref| / (kRowTolerance * sum |terms|): <= 1 passes
};

/// Checks y against the reference; prints the first few failing rows after `label`.
inline Verdict check(const Reference &ref, const std::vector<float> &y, const char *label) {
  Verdict v;
  if (y.size() != ref.y.size()) {
    std::printf("%s: %zu values, expected %zu\n", label, y.size(), ref.y.size());
    v.bad = ref.y.size() + 1;
    return v;
  }
  for (size_t i = 0; i < y.size(); ++i) {
    const double err = std::fabs(double(y[i]) - ref.y[i]), tol = kRowTolerance * ref.absSum[i];
    const bool ok = std::isfinite(y[i]) && (tol > 0 ? err <= tol : err == 0);
    if (tol > 0) v.worst = std::fmax(v.worst, err / tol);
    if (!ok && v.bad++ < 5)
      std::printf("%s: row %zu: %.9g, float64 reference %.9g (|diff| %.3g > %.3g)\n", label, i, y[i], ref.y[i], err, tol);
  }
  return v;
}

} // namespace spmv
