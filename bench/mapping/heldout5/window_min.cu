// Held-out case (bench/mapping/heldout5.tsv): a forward moving minimum of a
// signal over a fixed window (the erosion step of a 1-D morphological filter,
// or the trailing-low of a price series, as a naive Rodinia-style kernel
// writes it): one thread per sample takes the min of the MMIN_WINDOW samples
// starting at its own, clamped at the end of the signal. A min reduction of a
// small fixed trip count (windows of 8 and 32) whose reads overlap between
// neighbouring threads. Written for issue 22's fifth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef MMIN_WINDOW
#define MMIN_WINDOW 8
#endif
#ifndef MMIN_BLOCK
#define MMIN_BLOCK 128
#endif

__global__ void moving_min(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float m = x[i];
    for (int k = 1; k < MMIN_WINDOW; ++k) m = fminf(m, x[min(i + k, n - 1)]);
    out[i] = m;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("samples", 8388608));
  if (n < 1) {
    std::fprintf(stderr, "window_min: --samples must be at least 1\n");
    return 2;
  }
  std::vector<float> x = loops::random_floats(size_t(n), 531, -1.f, 1.f);
  float *dx = loops::to_device(x), *out = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 8.0 * double(n), [&] { moving_min<<<(n + MMIN_BLOCK - 1) / MMIN_BLOCK, MMIN_BLOCK>>>(dx, out, n); });
  std::vector<float> got = loops::from_device(out, size_t(n));
  // A min is exact in any order.
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    float m = x[size_t(i)];
    for (int k = 1; k < MMIN_WINDOW; ++k) m = std::min(m, x[size_t(std::min(i + k, n - 1))]);
    if (got[size_t(i)] != m) ++bad;
  }
  std::printf("window_min: %d samples, window %d%s\n", n, MMIN_WINDOW, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
