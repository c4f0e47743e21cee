// __launch_bounds__(256) with a 64-thread launch: 2 and 4 slaves fit as is; with 8 or 16 the launch is reshaped.
#include "loops_harness.cuh"

__global__ void __launch_bounds__(256) dot_rows(const float *a, const float *b, float *out, int n, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float s = 0.0f;
#pragma np parallel for reduction(+:s)
  for (int j = 0; j < m; ++j)
    s += a[(long long)row * m + j] * b[j];
  out[row] = s;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 3000)), m = int(args.get("m", 50));
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 12));
  float *b = loops::to_device(loops::random_floats(size_t(m), 13));
  float *out = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * (double(n) * m + m + n), [&] { dot_rows<<<(n + 63) / 64, 64>>>(a, b, out, n, m); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
