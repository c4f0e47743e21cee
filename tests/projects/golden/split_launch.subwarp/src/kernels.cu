// The kernels of the project: one thread per row, a loop over the row inside it.
#include "row_stats.cuh"
#include <nestor/np.cuh>

__global__ void row_norms(const float *m, float *norms, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int c = 0; c < kCols; ++c) {
    float v = m[row * kCols + c];
    sum += v * v;
  }
  norms[row] = sum;
}

// Per node, the sum of its edges' weights (CSR): an irregular loop per thread.
__global__ void neighbour_weights(const int *offsets, const float *weights, float *sums, int nodes) {
  // Sub-warp decomposition, width 8: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int v = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (v >= nodes) return;
  const int begin = nestor_np_group::read_from_master(nestor_np_group::is_master() ? (int)(offsets[v]) : (int)0);
  const int end = nestor_np_group::read_from_master(nestor_np_group::is_master() ? (int)(offsets[v + 1]) : (int)0);
  float total = 0.0f;
  // Sub-warp decomposition, width 8: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:total))
  total = nestor::subwarp::for_each_index<8>(begin, end, [=](int e) { return weights[e]; }, nestor::op::add{}, total);
  if (nestor_np_group::is_master()) { sums[v] = total; }
}
