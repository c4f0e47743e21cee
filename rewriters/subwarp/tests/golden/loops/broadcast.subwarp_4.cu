// Live-ins the master computes from memory (cuda-np.md 3.1): a non-const
// scalar updated by a sequential statement, a const scalar, and an early
// return whose condition reads memory. Row lengths vary (irregular loop).
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void scaled_prefix_sums(const float *a, const float *bias_in, const int *lens, float *out, int n, int m) {
  // Sub-warp decomposition, width 4: master = linear thread / 4, slave = linear thread % 4 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<4>;
  const dim3 nestor_blockDim(blockDim.x / 4, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (row >= n) return;
  if (nestor_np_group::read_from_master(nestor_np_group::is_master() ? bool(lens[row] < 0) : false)) return;
  float bias = (nestor_np_group::is_master() ? (float)(bias_in[row]) : (float)0);
  if (nestor_np_group::is_master()) { bias *= 2.0f; }
  const int len = nestor_np_group::read_from_master(nestor_np_group::is_master() ? (int)(lens[row] < m ? lens[row] : m) : (int)0);
  float s = 0.0f;
  // Sub-warp decomposition, width 4: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:s))
  bias = nestor_np_group::read_from_master(bias); // live-in
  s = nestor::subwarp::for_each_index<4>(0, len, [=](int j) { return a[(long long)row * m + j] * bias; }, nestor::op::add{}, s);
  if (nestor_np_group::is_master()) { out[row] = s + (float)len; }
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
  loops::timed(args, 4.0 * (double(n) * m / 2 + 3.0 * n), [&] { scaled_prefix_sums<<<(n + 63) / 64, dim3(256, 1, 1) /* Sub-warp decomposition, width 4, was 64 */>>>(a, bias, lens, out, n, m); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
