// Held-out case (bench/mapping/heldout5.tsv): a per-row scaled update of a
// dense row-major matrix, out = alpha[r] x X[r, :] + bias[:] (the affine step
// of a per-sample scaling, or the gradient update of a row-blocked embedding
// table), one thread per row writing every element of its row: a for-each
// loop with no reduction. Rows of 24 and 1536 elements. Written for issue 22's
// fifth held-out set, before any tuning on it; no weight of the mapping model
// was tuned on it.
#include "loops_harness.cuh"

#ifndef AXPY_BLOCK
#define AXPY_BLOCK 256
#endif

__global__ void row_axpy(const float *x, const float *alpha, const float *bias, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float a = alpha[r];
    for (int c = 0; c < cols; ++c) out[(size_t)r * cols + c] = a * x[(size_t)r * cols + c] + bias[c];
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 262144)), cols = int(args.get("cols", 64));
  if (rows < 1 || cols < 1) {
    std::fprintf(stderr, "row_axpy: --rows and --cols must be at least 1\n");
    return 2;
  }
  const size_t n = size_t(rows) * cols;
  std::vector<float> x = loops::random_floats(n, 541, -1.f, 1.f), alpha = loops::random_floats(size_t(rows), 542, 0.5f, 2.f),
                     bias = loops::random_floats(size_t(cols), 543, -0.1f, 0.1f);
  float *dx = loops::to_device(x), *dalpha = loops::to_device(alpha), *dbias = loops::to_device(bias);
  float *out = loops::device_zeros<float>(n);
  loops::timed(args, 8.0 * double(n) + 4.0 * rows, [&] {
    row_axpy<<<(rows + AXPY_BLOCK - 1) / AXPY_BLOCK, AXPY_BLOCK>>>(dx, dalpha, dbias, out, rows, cols);
  });
  std::vector<float> got = loops::from_device(out, n);
  // One multiply-add per element: 1e-6 absolute is far above its rounding.
  size_t bad = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      double want = double(alpha[size_t(r)]) * x[size_t(r) * cols + c] + bias[size_t(c)];
      if (std::fabs(got[size_t(r) * cols + c] - want) > 1e-6) ++bad;
    }
  std::printf("row_axpy: %d rows x %d%s\n", rows, cols, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
