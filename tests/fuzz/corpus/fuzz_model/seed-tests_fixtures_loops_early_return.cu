// Row sums with a bounds guard `if (row >= n) return;`: n is not a multiple
// of the block, so the last block has threads that return before the loop.
// Block of 32 so that even 32 slaves fit in 1024 threads.
#include "loops_harness.cuh"

__global__ void row_sums(const float *a, float *out, int n, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float s = 0.0f;
  for (int j = 0; j < m; ++j)
    s += a[(long long)row * m + j];
  out[row] = s;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 1000)), m = int(args.get("m", 37));
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 3));
  float *out = loops::device_zeros<float>(size_t(n));
  dim3 block(32);
  loops::timed(args, 4.0 * (double(n) * m + n), [&] { row_sums<<<(n + 31) / 32, block>>>(a, out, n, m); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
