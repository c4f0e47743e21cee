// Held-out case (bench/mapping/heldout4.tsv): the log-sum-exp of every row of
// a logits matrix (the normaliser of a row softmax, as a sampling or
// cross-entropy step computes it), one thread per row in the numerically safe
// two-pass form: a max reduction over the row, then a sum of exponentials
// shifted by that max. Rows of 12 (a small vocabulary of classes), 320 and
// 2000 logits. Written for issue 22's fourth held-out set, before any tuning
// on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef LSE_BLOCK
#define LSE_BLOCK 128
#endif

__global__ void row_logsumexp(const float *logits, float *lse, int rows, int classes) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float *z = logits + (size_t)r * classes;
    float m = -INFINITY;
    for (int k = 0; k < classes; ++k) m = fmaxf(m, z[k]);
    float s = 0.0f;
    for (int k = 0; k < classes; ++k) s += __expf(z[k] - m);
    lse[r] = m + __logf(s);
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 131072)), classes = int(args.get("classes", 64));
  if (rows < 1 || classes < 1) {
    std::fprintf(stderr, "softmax_rows: --rows and --classes must be at least 1\n");
    return 2;
  }
  std::vector<float> z = loops::random_floats(size_t(rows) * classes, 411, -8.f, 8.f);
  float *dz = loops::to_device(z), *lse = loops::device_zeros<float>(size_t(rows));
  loops::timed(args, 4.0 * (2.0 * double(rows) * classes + rows), [&] {
    row_logsumexp<<<(rows + LSE_BLOCK - 1) / LSE_BLOCK, LSE_BLOCK>>>(dz, lse, rows, classes);
  });
  std::vector<float> got = loops::from_device(lse, size_t(rows));
  // log-sum-exp lies in [max, max + log(classes)], |max| <= 8: __expf and
  // __logf are within a few ulps, so 1e-3 absolute is far above rounding.
  size_t bad = 0;
  for (int r = 0; r < rows; ++r) {
    double m = -1e30, s = 0;
    for (int k = 0; k < classes; ++k) m = std::max(m, double(z[size_t(r) * classes + k]));
    for (int k = 0; k < classes; ++k) s += std::exp(double(z[size_t(r) * classes + k]) - m);
    if (std::fabs(got[size_t(r)] - (m + std::log(s))) > 1e-3) ++bad;
  }
  std::printf("softmax_rows: %d rows x %d classes%s\n", rows, classes, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
