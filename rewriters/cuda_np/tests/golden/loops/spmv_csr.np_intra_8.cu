// CSR SpMV, one thread per row (the CTE paper's 1D baseline): the loop trip
// count is the row length, irregular on power-law matrices.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void spmv_csr(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows) {
  // CUDA-NP: 8 slaves, intra-warp: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  // CUDA-NP: 8 slaves, intra-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:sum))
  {
    const float nestor_sum_in = sum;
    sum = nestor::op::add::identity<float>(); // this thread's partial
  for (int j = (rowptr[row]) + nestor_np_group::slave_id(); j < rowptr[row + 1]; j += nestor_np_group::slave_size)
    sum += val[j] * x[col[j]];
    sum = nestor::op::add{}(nestor_sum_in, nestor_np_group::reduce<nestor::op::add>(sum)); // reduction(+:sum) (3.2)
  }
  if (nestor_np_group::is_master()) { y[row] = sum; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 20000)), avg = int(args.get("avg", 16));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(rows, rows, avg, powerlaw, unsigned(args.get("seed", 7)));
  int *rp = loops::to_device(a.rowptr), *ci = loops::to_device(a.col);
  float *v = loops::to_device(a.val), *x = loops::to_device(loops::random_floats(size_t(rows), 8));
  float *y = loops::device_zeros<float>(size_t(rows));
  const double bytes = 8.0 * a.val.size() + 4.0 * a.val.size() + 12.0 * rows;
  loops::timed(args, bytes, [&] { spmv_csr<<<(rows + 31) / 32, dim3(256, 1, 1) /* CUDA-NP: 8 slaves, intra-warp, was 32 */>>>(rp, ci, v, x, y, rows); });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  return 0;
}
