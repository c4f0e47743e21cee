#include <nestor/np.cuh>
// Launch configurations written with casts, as real code often writes them
// (`int(...)`, `unsigned(...)`): CUDA-NP enlarges the block and, where the
// enlarged block would not fit, reshapes the grid; the new configuration
// must replace the whole written argument, cast included (a regression:
// `int(X)` became `int(dim3 ...)`, which nvcc rejects).

constexpr int kBlock = 256;

__global__ void row_sums(const float *a, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += a[r * cols + c];
  out[r] = s;
}

__global__ void row_max(const float *a, float *out, int rows, int cols) {
  // CUDA-NP: 16 slaves, intra-warp: master = linear thread / 16, slave = linear thread % 16 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<16>;
  const dim3 nestor_blockDim(blockDim.x / 16, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int r = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (r < rows) {
    float m = (nestor_np_group::is_master() ? (float)(a[r * cols]) : (float)0);
    // CUDA-NP: 16 slaves, intra-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(max:m))
    {
      const float nestor_m_in = m;
      m = nestor::op::max::identity<float>(); // this thread's partial
    for (int c = (1) + nestor_np_group::slave_id(); c < cols; c += nestor_np_group::slave_size) m = fmaxf(m, a[r * cols + c]);
      m = nestor::op::max{}(nestor_m_in, nestor_np_group::reduce<nestor::op::max>(m)); // reduction(max:m) (3.2)
    }
    if (nestor_np_group::is_master()) { out[r] = m; }
  }
}

void launch(const float *a, float *sums, float *maxima, int rows, int cols, int threads) {
  row_sums<<<int((rows + kBlock - 1) / kBlock), int(kBlock)>>>(a, sums, rows, cols);
  row_max<<<nestor::np::reshape_grid(unsigned((rows + threads - 1) / threads), nestor::np::reshape_factor(unsigned(threads), 16, 1024)) /* was (rows + threads - 1) / threads */, nestor::np::reshape_block(unsigned(threads), 16, 1024) /* CUDA-NP: 16 slaves, intra-warp, was threads */>>>(a, maxima, rows, cols);
}
