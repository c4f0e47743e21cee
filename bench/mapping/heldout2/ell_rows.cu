// Held-out case (bench/mapping/heldout2.tsv): sparse matrix-vector product in
// ELLPACK form (the format of Bell & Garland's and cuSPARSE's ELL kernels):
// every row padded to the same width, the entries stored column-major so that
// a warp's threads read consecutive words at every step, padding marked with
// a column of -1. One thread per row, a uniform loop with a guard inside.
// Held-out: no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef ELL_BLOCK
#define ELL_BLOCK 128
#endif

__global__ void ell_rows(int nrows, int width, const int *ell_col, const float *ell_val, const float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < nrows) {
    float sum = 0.0f;
    for (int k = 0; k < width; k++) {
      int c = ell_col[(size_t)k * nrows + row];
      if (c >= 0) sum += ell_val[(size_t)k * nrows + row] * x[c];
    }
    y[row] = sum;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 65536)), width = int(args.get("width", 16));
  // Row lengths vary in [width/2, width]: the rest of each row is padding.
  std::mt19937 g(unsigned(args.get("seed", 71)));
  std::uniform_int_distribution<int> col(0, rows - 1), len(width / 2, width);
  std::uniform_real_distribution<float> val(-1.f, 1.f);
  std::vector<int> c(size_t(rows) * width, -1);
  std::vector<float> v(size_t(rows) * width, 0.f);
  for (int r = 0; r < rows; ++r) {
    const int n = len(g);
    for (int k = 0; k < n; ++k) {
      c[size_t(k) * rows + r] = col(g);
      v[size_t(k) * rows + r] = val(g);
    }
  }
  int *dc = loops::to_device(c);
  float *dv = loops::to_device(v), *x = loops::to_device(loops::random_floats(size_t(rows), 72));
  float *y = loops::device_zeros<float>(size_t(rows));
  loops::timed(args, 12.0 * double(rows) * width + 8.0 * rows,
               [&] { ell_rows<<<(rows + ELL_BLOCK - 1) / ELL_BLOCK, ELL_BLOCK>>>(rows, width, dc, dv, x, y); });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  return 0;
}
