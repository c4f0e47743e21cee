// Held-out case (bench/mapping/heldout7.tsv): a banded matrix-vector product in
// row-band storage (the LAPACK-style band layout turned row-major, as a finite-
// difference or spline-smoothing solver keeps a matrix of fixed bandwidth):
// row r holds its band coefficients contiguously, coefficient k multiplying
// x[r - band / 2 + k], and one thread per row sums the products that fall
// inside the vector. A float sum over a dense row with a shifted, overlapping
// read of x (neighbouring threads read neighbouring windows); bands of 7 and
// 127. Written for issue 22's seventh held-out set, before any tuning on it;
// no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef BAND_BLOCK
#define BAND_BLOCK 256
#endif

__global__ void banded_rows(const float *band_val, const float *x, float *y, int n, int band) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    int first = r - band / 2;
    float s = 0.0f;
    for (int k = 0; k < band; ++k) {
      int c = first + k;
      if (c >= 0 && c < n) s += band_val[(size_t)r * band + k] * x[c];
    }
    y[r] = s;
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
  const int n = int(args.get("rows", 1048576)), band = int(args.get("band", 7));
  if (n < 1 || band < 1) {
    std::fprintf(stderr, "banded_mv: --rows and --band must be at least 1\n");
    return 2;
  }
  const size_t total = size_t(n) * band;
  std::vector<float> val(total), x(static_cast<size_t>(n));
  for (size_t j = 0; j < total; ++j) val[j] = hash_unit(unsigned(j), 731u);
  for (int i = 0; i < n; ++i) x[size_t(i)] = hash_unit(unsigned(i), 732u);
  float *dval = loops::to_device(val), *dx = loops::to_device(x), *y = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * double(total) + 8.0 * n, [&] {
    banded_rows<<<(n + BAND_BLOCK - 1) / BAND_BLOCK, BAND_BLOCK>>>(dval, dx, y, n, band);
  });
  std::vector<float> got = loops::from_device(y, size_t(n));
  // The reference in double; up to 127 products of values in [-1, 1] summed in
  // float in any order stay far within 1e-3 of it.
  size_t bad = 0;
  for (int r = 0; r < n; ++r) {
    double s = 0;
    for (int k = 0; k < band; ++k) {
      const long c = long(r) - band / 2 + k;
      if (c >= 0 && c < n) s += double(val[size_t(r) * band + k]) * x[size_t(c)];
    }
    if (std::fabs(got[size_t(r)] - s) > 1e-3 * std::max(1.0, std::fabs(s))) ++bad;
  }
  std::printf("banded_mv: %d rows, band %d%s\n", n, band, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
