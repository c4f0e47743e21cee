// Blocks declared once at file scope, as sample-style programs declare them:
// column sums launched with a const dim3 spelled with a build-time macro
// (`-DCOLSUM_BLOCK=256`), row maxima with a plain global the program sets
// from --block at run time.
// CUDA-NP writes the first launch's enlarged block from the value the macro
// has when the file is analysed (128), guarded: built with another value the
// rewritten launch is a compile error (rewrite_nvcc_other_block). The second
// global can change anywhere in the program, so its initial value is not
// taken as the block: the rewrite enlarges the block it finds at run time.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

#ifndef COLSUM_BLOCK
#define COLSUM_BLOCK 128
#endif

const dim3 kColBlock(COLSUM_BLOCK);
unsigned gRowThreads = 128;

__global__ void col_sum(const float *a, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) s += a[(long long)r * cols + c];
  out[c] = s;
}

__global__ void row_max(const float *a, float *out, int rows, int cols) {
  // CUDA-NP: 4 slaves, intra-warp: master = linear thread / 4, slave = linear thread % 4 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<4>;
  const dim3 nestor_blockDim(blockDim.x / 4, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int r = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (r >= rows) return;
  float m = -1e30f;
  // CUDA-NP: 4 slaves, intra-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(max:m))
  {
    const float nestor_m_in = m;
    m = nestor::op::max::identity<float>(); // this thread's partial
  for (int c = (0) + nestor_np_group::slave_id(); c < cols; c += nestor_np_group::slave_size) m = fmaxf(m, a[(long long)r * cols + c]);
    m = nestor::op::max{}(nestor_m_in, nestor_np_group::reduce<nestor::op::max>(m)); // reduction(max:m) (3.2)
  }
  if (nestor_np_group::is_master()) { out[r] = m; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 300)), cols = int(args.get("cols", 1000));
  gRowThreads = unsigned(args.get("block", 128));
  float *a = loops::to_device(loops::random_floats(size_t(rows) * cols, 7));
  float *sums = loops::device_zeros<float>(size_t(cols)), *maxima = loops::device_zeros<float>(size_t(rows));
  loops::timed(args, 4.0 * (2.0 * rows * cols + rows + cols), [&] {
    col_sum<<<(cols + kColBlock.x - 1) / kColBlock.x, kColBlock>>>(a, sums, rows, cols);
    row_max<<<nestor::np::reshape_grid((rows + gRowThreads - 1) / gRowThreads, nestor::np::reshape_factor(gRowThreads, 4, 1024)) /* was (rows + gRowThreads - 1) / gRowThreads */, nestor::np::reshape_block(gRowThreads, 4, 1024) /* CUDA-NP: 4 slaves, intra-warp, was gRowThreads */>>>(a, maxima, rows, cols);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(sums, size_t(cols)));
  res.add(loops::from_device(maxima, size_t(rows)));
  return 0;
}
