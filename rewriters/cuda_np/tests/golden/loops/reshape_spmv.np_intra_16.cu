// Launch reshaping (issue 11): CSR SpMV launched with 256 threads per block
// (a constant) and with a block chosen at run time. With S slaves per row,
// 256 x S threads would not fit a block for S >= 8, so the rewrites keep one
// row per master and put fewer masters in each block, more blocks in the grid.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void spmv_256(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows) {
  // CUDA-NP: 16 slaves, intra-warp: master = linear thread / 16, slave = linear thread % 16 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<16>;
  const dim3 nestor_blockDim(blockDim.x / 16, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  // Launches reshaped: 4x the blocks, 64 masters each (the original block with 16 slaves per thread would not fit); blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x is the original thread's index.
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  // CUDA-NP: 16 slaves, intra-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:sum))
  {
    const float nestor_sum_in = sum;
    sum = nestor::op::add::identity<float>(); // this thread's partial
  for (int j = (rowptr[row]) + nestor_np_group::slave_id(); j < rowptr[row + 1]; j += nestor_np_group::slave_size)
    sum += val[j] * x[col[j]];
    sum = nestor::op::add{}(nestor_sum_in, nestor_np_group::reduce<nestor::op::add>(sum)); // reduction(+:sum) (3.2)
  }
  if (nestor_np_group::is_master()) { y[row] = sum; }
}

__global__ void spmv_rt(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows) {
  int row = threadIdx.x + blockDim.x * blockIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j)
      sum += val[j] * x[col[j]];
    y[row] = sum;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 20000)), avg = int(args.get("avg", 16));
  const int threads = int(args.get("block", 192)); // any size up to 1024; 0: spmv_256 alone (bench/mapping)
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(rows, rows, avg, powerlaw, unsigned(args.get("seed", 7)));
  int *rp = loops::to_device(a.rowptr), *ci = loops::to_device(a.col);
  float *v = loops::to_device(a.val), *x = loops::to_device(loops::random_floats(size_t(rows), 8));
  float *y = loops::device_zeros<float>(size_t(rows)), *z = loops::device_zeros<float>(size_t(rows));
  const double bytes = 2 * (8.0 * a.val.size() + 4.0 * a.val.size() + 12.0 * rows);
  loops::timed(args, bytes, [&] {
    spmv_256<<<nestor::np::reshape_grid((rows + 255) / 256, 4) /* was (rows + 255) / 256 */, dim3(1024, 1, 1) /* CUDA-NP: 16 slaves, intra-warp, was 256 */>>>(rp, ci, v, x, y, rows);
    if (threads > 0) spmv_rt<<<(rows + threads - 1) / threads, threads>>>(rp, ci, v, x, z, rows);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  if (threads > 0) res.add(loops::from_device(z, size_t(rows)));
  return 0;
}
