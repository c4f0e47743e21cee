// Launch configurations written with casts, as real code often writes them
// (`int(...)`, `unsigned(...)`): CUDA-NP enlarges the block and, where the
// enlarged block would not fit, reshapes the grid, replacing the whole
// written argument, cast included. Runnable twin of the compile-only
// rewriters/cuda_np/tests/launch_casts.cu: row sums with a constant block
// of 256, row maxima with a block chosen at run time (--block).
#include "loops_harness.cuh"
#include <nestor/np.cuh>

constexpr int kBlock = 256;

__global__ void row_sums(const float *a, float *out, int rows, int cols) {
  // CUDA-NP: 8 slaves, intra-warp: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  // Launches reshaped: 2x the blocks, 128 masters each (the original block with 8 slaves per thread would not fit); blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x is the original thread's index.
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int r = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  // CUDA-NP: 8 slaves, intra-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:s))
  {
    const float nestor_s_in = s;
    s = nestor::op::add::identity<float>(); // this thread's partial
  for (int c = (0) + nestor_np_group::slave_id(); c < cols; c += nestor_np_group::slave_size) s += a[(long long)r * cols + c];
    s = nestor::op::add{}(nestor_s_in, nestor_np_group::reduce<nestor::op::add>(s)); // reduction(+:s) (3.2)
  }
  if (nestor_np_group::is_master()) { out[r] = s; }
}

__global__ void row_max(const float *a, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = a[(long long)r * cols];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, a[(long long)r * cols + c]);
    out[r] = m;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 1000)), cols = int(args.get("cols", 37));
  const int threads = int(args.get("block", 192));
  float *a = loops::to_device(loops::random_floats(size_t(rows) * cols, 5));
  float *sums = loops::device_zeros<float>(size_t(rows)), *maxima = loops::device_zeros<float>(size_t(rows));
  loops::timed(args, 4.0 * (2.0 * rows * cols + 2.0 * rows), [&] {
    row_sums<<<nestor::np::reshape_grid(int((rows + kBlock - 1) / kBlock), 2) /* was (rows + kBlock - 1) / kBlock */, nestor::np::block_as_analysed<((int(kBlock)) == 256)>(dim3(1024, 1, 1)) /* CUDA-NP: 8 slaves, intra-warp, was kBlock */>>>(a, sums, rows, cols);
    row_max<<<unsigned((rows + threads - 1) / threads), unsigned(threads)>>>(a, maxima, rows, cols);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(sums, size_t(rows)));
  res.add(loops::from_device(maxima, size_t(rows)));
  return 0;
}
