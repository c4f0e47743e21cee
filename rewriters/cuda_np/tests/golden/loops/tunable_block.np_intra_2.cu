// Row maxima with a block size left to the build (`-DROWMAX_BLOCK=256`), as
// tuned kernels often are: the launch spells its block with the macro.
// CUDA-NP writes the enlarged block from the value the macro has when the
// file is analysed (128 here), and guards it: built with another value, the
// rewritten launch is a compile error (tests/rewrite: rewrite_nvcc_other_block).
#include "loops_harness.cuh"
#include <nestor/np.cuh>

#ifndef ROWMAX_BLOCK
#define ROWMAX_BLOCK 128
#endif

__global__ void row_max(const float *a, float *out, int n, int m) {
  // CUDA-NP: 2 slaves, intra-warp: master = linear thread / 2, slave = linear thread % 2 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<2>;
  const dim3 nestor_blockDim(blockDim.x / 2, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (row >= n) return;
  float best = -1e30f;
  // CUDA-NP: 2 slaves, intra-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(max:best))
  {
    const float nestor_best_in = best;
    best = nestor::op::max::identity<float>(); // this thread's partial
  for (int j = (0) + nestor_np_group::slave_id(); j < m; j += nestor_np_group::slave_size)
    best = fmaxf(best, a[(long long)row * m + j]);
    best = nestor::op::max{}(nestor_best_in, nestor_np_group::reduce<nestor::op::max>(best)); // reduction(max:best) (3.2)
  }
  if (nestor_np_group::is_master()) { out[row] = best; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 3000)), m = int(args.get("m", 45));
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 5));
  float *out = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * (double(n) * m + n), [&] {
    row_max<<<(n + ROWMAX_BLOCK - 1) / ROWMAX_BLOCK, nestor::np::block_as_analysed<((ROWMAX_BLOCK) == 128)>(dim3(256, 1, 1)) /* CUDA-NP: 2 slaves, intra-warp, was ROWMAX_BLOCK */>>>(a, out, n, m);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
