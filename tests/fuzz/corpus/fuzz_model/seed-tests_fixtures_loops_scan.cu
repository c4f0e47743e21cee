// A parallel loop with a scan (running sum written per element), a loop whose
// scalar keeps the last iteration's value (cuda-np.md 3.2), and a small local
// array read outside the parallel loops (shared-memory placement, 3.3).
#include "loops_harness.cuh"

__global__ void prefix_rows(const float *a, float *prefix, float *totals, float *lasts, int *hist_out, int n, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  int hist[8];
  float acc = 0.0f;
#pragma np parallel for scan(+:acc)
  for (int j = 0; j < m; ++j) {
    float v = a[(long long)row * m + j];
    acc += v;
    prefix[(long long)row * m + j] = acc;
  }
  totals[row] = acc;
  float last = -1.0f;
#pragma np parallel for
  for (int j = 0; j < m; ++j) {
    last = a[(long long)row * m + j] * 2.0f;
    prefix[(long long)row * m + j] += last;
  }
  lasts[row] = last;
#pragma np parallel for
  for (int k = 0; k < 8; ++k) hist[k] = k * row;
  hist_out[row] = hist[row % 8] + hist[7];
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 777)), m = int(args.get("m", 45));
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 14));
  float *prefix = loops::device_zeros<float>(size_t(n) * m);
  float *totals = loops::device_zeros<float>(size_t(n));
  float *lasts = loops::device_zeros<float>(size_t(n));
  int *hist = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 4.0 * (4.0 * n * m + 3.0 * n), [&] { prefix_rows<<<(n + 63) / 64, 64>>>(a, prefix, totals, lasts, hist, n, m); });
  loops::ResultFile res(args);
  res.add(loops::from_device(prefix, size_t(n) * m));
  res.add(loops::from_device(totals, size_t(n)));
  res.add(loops::from_device(lasts, size_t(n)));
  res.add(loops::from_device(hist, size_t(n)));
  return 0;
}
