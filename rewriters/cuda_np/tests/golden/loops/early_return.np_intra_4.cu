// Row sums with a bounds guard `if (row >= n) return;`: n is not a multiple
// of the block, so the last block has threads that return before the loop.
// Block of 32 so that even 32 slaves fit in 1024 threads.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void row_sums(const float *a, float *out, int n, int m) {
  // CUDA-NP: 4 slaves, intra-warp: master = linear thread / 4, slave = linear thread % 4 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<4>;
  const dim3 nestor_blockDim(blockDim.x / 4, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (row >= n) return;
  float s = 0.0f;
  // CUDA-NP: 4 slaves, intra-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:s))
  {
    const float nestor_s_in = s;
    s = nestor::op::add::identity<float>(); // this thread's partial
  for (int j = (0) + nestor_np_group::slave_id(); j < m; j += nestor_np_group::slave_size)
    s += a[(long long)row * m + j];
    s = nestor::op::add{}(nestor_s_in, nestor_np_group::reduce<nestor::op::add>(s)); // reduction(+:s) (3.2)
  }
  if (nestor_np_group::is_master()) { out[row] = s; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 1000)), m = int(args.get("m", 37));
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 3));
  float *out = loops::device_zeros<float>(size_t(n));
  dim3 block(32);
  loops::timed(args, 4.0 * (double(n) * m + n), [&] { row_sums<<<(n + 31) / 32, dim3(128, 1, 1) /* CUDA-NP: 4 slaves, intra-warp, was block */>>>(a, out, n, m); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
