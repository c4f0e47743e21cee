// Held-out case (bench/mapping/heldout7.tsv): the evaluation of a truncated
// Fourier series per item (harmonic synthesis of per-object contour or
// periodic-trend models, elliptic Fourier descriptors evaluated at one phase,
// as a shape-analysis or forecasting pass does it): item i holds terms pairs
// (a_k, b_k) in a contiguous row and its own phase theta_i, and one thread per
// item sums a_k cos(k theta) + b_k sin(k theta) over k. A float sum with two
// transcendental calls per term over a dense row of 2 x terms floats; 12 and
// 96 terms. Written for issue 22's seventh held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef FOURIER_BLOCK
#define FOURIER_BLOCK 256
#endif

__global__ void fourier_series(const float *coef, const float *theta, float *value, int items, int terms) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < items) {
    const float *c = coef + (size_t)i * 2 * terms;
    float t = theta[i];
    float s = 0.0f;
    for (int k = 0; k < terms; ++k) s += c[2 * k] * cosf((k + 1) * t) + c[2 * k + 1] * sinf((k + 1) * t);
    value[i] = s;
  }
}

static float hash_unit(unsigned i, unsigned salt) {  // in [-1, 1)
  i = i * 0x9E3779B9u + salt;
  i ^= i >> 16;
  i *= 0x7FEB352Du;
  i ^= i >> 15;
  i *= 0x846CA68Bu;
  i ^= i >> 16;
  return float(i >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int items = int(args.get("items", 1048576)), terms = int(args.get("terms", 16));
  if (items < 1 || terms < 1) {
    std::fprintf(stderr, "fourier_eval: --items and --terms must be at least 1\n");
    return 2;
  }
  // Coefficients decaying as 1 / (k + 1), the way a smooth contour's do.
  const size_t total = size_t(items) * 2 * terms;
  std::vector<float> coef(total), theta(static_cast<size_t>(items));
  for (size_t j = 0; j < total; ++j) coef[j] = hash_unit(unsigned(j), 711u) / float((j / 2) % size_t(terms) + 1);
  for (int i = 0; i < items; ++i) theta[size_t(i)] = 3.14159265f * hash_unit(unsigned(i), 712u);
  float *dcoef = loops::to_device(coef), *dtheta = loops::to_device(theta);
  float *value = loops::device_zeros<float>(size_t(items));
  loops::timed(args, 4.0 * double(total) + 8.0 * items, [&] {
    fourier_series<<<(items + FOURIER_BLOCK - 1) / FOURIER_BLOCK, FOURIER_BLOCK>>>(dcoef, dtheta, value, items, terms);
  });
  std::vector<float> got = loops::from_device(value, size_t(items));
  // The reference in double, cos(k t) and sin(k t) by the angle-addition
  // recurrence (two library calls per item, to keep the host work small; its
  // error grows as k eps). The sum of |c| is at most 2 (1 + ln terms), so
  // float sums in any order and the device's sinf/cosf stay far within 1e-3.
  size_t bad = 0;
  for (int i = 0; i < items; ++i) {
    const float *c = coef.data() + size_t(i) * 2 * terms;
    const double t = theta[size_t(i)], c1 = std::cos(t), s1 = std::sin(t);
    double s = 0, ck = c1, sk = s1;
    for (int k = 0; k < terms; ++k) {
      s += c[2 * k] * ck + c[2 * k + 1] * sk;
      const double cn = ck * c1 - sk * s1;
      sk = sk * c1 + ck * s1;
      ck = cn;
    }
    if (std::fabs(got[size_t(i)] - s) > 1e-3 * std::max(1.0, std::fabs(s))) ++bad;
  }
  std::printf("fourier_eval: %d items x %d terms%s\n", items, terms, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
