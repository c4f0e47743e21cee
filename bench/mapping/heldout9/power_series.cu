// Held-out case (bench/mapping/heldout9.tsv): every item's own power series
// summed at its own point (per-element response curves, calibration
// polynomials of varying order, or a variable-length power expansion, one
// item per thread, written term by term with powf as straightforward ports
// do): item i's coefficients are coef[coef_start[i] .. coef_start[i + 1]),
// lowest order first, and one thread adds c_k x^k for every k. A float sum
// over an irregular contiguous row with no gather and a powf per term; power-
// law and regular coefficient counts (the offsets and values of a CSR
// matrix). Written for issue 22's ninth held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it. (It replaces, on the
// same inputs, the same polynomials evaluated by Horner's rule, p = p * x + c,
// a recurrence for which no rewrite was offered.)
#include "loops_harness.cuh"

#ifndef PSER_BLOCK
#define PSER_BLOCK 256
#endif

__global__ void power_series_segments(int items, const int *coef_start, const float *coef, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < items) {
    int first = coef_start[i];
    float t = x[i];
    float p = 0.0f;
    for (int k = first; k < coef_start[i + 1]; ++k) p += coef[k] * powf(t, (float)(k - first));
    y[i] = p;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int items = int(args.get("rows", 262144)), avg = int(args.get("avg", 8));
  if (items < 1) {
    std::fprintf(stderr, "power_series: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(items, items, avg, powerlaw, unsigned(args.get("seed", 941)));
  // Points in (-0.9, 0.9), coefficients in [-1, 1]: every sum stays below
  // 10 in size, whatever the order.
  std::vector<float> x(static_cast<size_t>(items));
  for (int i = 0; i < items; ++i) {
    unsigned h = unsigned(i) * 0x9E3779B9u + 942u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    x[size_t(i)] = (float(h >> 8) * (1.0f / 16777216.0f) - 0.5f) * 1.8f;
  }
  int *start = loops::to_device(a.rowptr);
  float *dcoef = loops::to_device(a.val), *dx = loops::to_device(x), *y = loops::device_zeros<float>(size_t(items));
  loops::timed(args, 4.0 * a.val.size() + 12.0 * items, [&] {
    power_series_segments<<<(items + PSER_BLOCK - 1) / PSER_BLOCK, PSER_BLOCK>>>(items, start, dcoef, dx, y);
  });
  std::vector<float> got = loops::from_device(y, size_t(items));
  // The reference in double from the same float inputs (by Horner's rule,
  // highest order first); |x| < 0.9 keeps every sum below 10 in size.
  size_t bad = 0;
  for (int i = 0; i < items; ++i) {
    double p = 0;
    for (int k = a.rowptr[size_t(i) + 1]; k-- > a.rowptr[size_t(i)];) p = p * x[size_t(i)] + a.val[size_t(k)];
    if (std::fabs(got[size_t(i)] - p) > 1e-3 * std::max(1.0, std::fabs(p))) ++bad;
  }
  std::printf("power_series: %d polynomials, %zu coefficients%s\n", items, a.val.size(),
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
