// Live-ins the master computes from memory (cuda-np.md 3.1): a non-const
// scalar updated by a sequential statement, a const scalar, and an early
// return whose condition reads memory. Row lengths vary (irregular loop).
#include "loops_harness.cuh"
#include <nestor/cte.cuh>

__global__ void scaled_prefix_sums(const float *a, const float *bias_in, const int *lens, float *out, int n, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  if (lens[row] < 0) return;
  float bias = bias_in[row];
  bias *= 2.0f;
  const int len = lens[row] < m ? lens[row] : m;
  float s = 0.0f;
  // Rewrite loop with CTE ("Eliminating Intra-warp Load Imbalance in Irregular Nested Patterns via Collaborative Task Engagement", III-B): the warp expands its
  // threads' ranges into one list of fine tasks and reduces them per owner.
  s = nestor::cte::for_each_index<64, nestor::cte::disjoint>(
      0, len,
      [=](int j, float bias, int row) { return a[(long long)row * m + j] * bias; },
      nestor::op::add{}, s, bias, row);
  out[row] = s + (float)len;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 1000)), m = int(args.get("m", 40));
  std::vector<int> hl(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) hl[size_t(i)] = (i % 7 == 3) ? -1 : (i * 37) % (m + 5);
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 15));
  float *bias = loops::to_device(loops::random_floats(size_t(n), 16));
  int *lens = loops::to_device(hl);
  float *out = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * (double(n) * m / 2 + 3.0 * n), [&] { scaled_prefix_sums<<<(n + 63) / 64, 64>>>(a, bias, lens, out, n, m); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
