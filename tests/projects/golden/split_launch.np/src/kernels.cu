// The kernels of the project: one thread per row, a loop over the row inside it.
#include "row_stats.cuh"
#include <nestor/np.cuh>

__global__ void row_norms(const float *m, float *norms, int rows) {
  // CUDA-NP: 4 slaves, inter-warp: block (128, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<128, 4>;
  const dim3 nestor_blockDim(128, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  bool nestor_active = true; // false once the original thread would have returned
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  nestor_active = nestor_active && !(row >= rows); // was: if (row >= rows) return; (inter-warp NP keeps every thread for the block barriers)
  float sum = 0.0f;
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:sum))
  {
    const float nestor_sum_in = sum;
    sum = nestor::op::add::identity<float>(); // this thread's partial
  for (int c = (0) + nestor_np_group::slave_id(); nestor_active && (c < kCols); c += nestor_np_group::slave_size) {
    float v = m[row * kCols + c];
    sum += v * v;
  }
    sum = nestor::op::add{}(nestor_sum_in, nestor_np_group::reduce<nestor::op::add>(sum)); // reduction(+:sum) (3.2)
  }
  if ((nestor_active && nestor_np_group::is_master())) { norms[row] = sum; }
}

// Per node, the sum of its edges' weights (CSR): an irregular loop per thread.
__global__ void neighbour_weights(const int *offsets, const float *weights, float *sums, int nodes) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nodes) return;
  const int begin = offsets[v];
  const int end = offsets[v + 1];
  float total = 0.0f;
  for (int e = begin; e < end; ++e) total += weights[e];
  sums[v] = total;
}
