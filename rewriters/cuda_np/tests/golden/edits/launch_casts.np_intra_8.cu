#include <nestor/np.cuh>
// Launch configurations written with casts, as real code often writes them
// (`int(...)`, `unsigned(...)`): CUDA-NP enlarges the block and, where the
// enlarged block would not fit, reshapes the grid; the new configuration
// must replace the whole written argument, cast included (a regression:
// `int(X)` became `int(dim3 ...)`, which nvcc rejects).

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
  for (int c = (0) + nestor_np_group::slave_id(); c < cols; c += nestor_np_group::slave_size) s += a[r * cols + c];
    s = nestor::op::add{}(nestor_s_in, nestor_np_group::reduce<nestor::op::add>(s)); // reduction(+:s) (3.2)
  }
  if (nestor_np_group::is_master()) { out[r] = s; }
}

__global__ void row_max(const float *a, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = a[r * cols];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, a[r * cols + c]);
    out[r] = m;
  }
}

void launch(const float *a, float *sums, float *maxima, int rows, int cols, int threads) {
  row_sums<<<nestor::np::reshape_grid(int((rows + kBlock - 1) / kBlock), 2) /* was (rows + kBlock - 1) / kBlock */, nestor::np::block_as_analysed<((int(kBlock)) == 256)>(dim3(1024, 1, 1)) /* CUDA-NP: 8 slaves, intra-warp, was kBlock */>>>(a, sums, rows, cols);
  row_max<<<unsigned((rows + threads - 1) / threads), unsigned(threads)>>>(a, maxima, rows, cols);
}
