// Parallel loops inside branches (issue 4): the usual `if (row < n) { ... }`
// guard instead of an early return, an if/else with a parallel loop in each
// branch (the one in `else` carries a pragma, the one in `then` is inferred),
// and a live-in the master reads from memory inside the branch.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void branchy_rows(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows) {
  // Sub-warp decomposition, width 8: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    const int start = nestor_np_group::read_from_master(nestor_np_group::is_master() ? (int)(rowptr[row]) : (int)0);
    if (row % 3 != 0) {
      // Sub-warp decomposition, width 8: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:sum))
      sum = nestor::subwarp::for_each_index<8>(start, rowptr[row + 1], [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{}, sum);
    } else if (nestor_np_group::is_master()) { {
      float biggest = -1.0e30f;
#pragma np parallel for reduction(max:biggest)
      for (int j = start; j < rowptr[row + 1]; ++j)
        biggest = fmaxf(biggest, val[j]);
      sum = biggest;
    } }
    if (nestor_np_group::is_master()) { y[row] = sum; }
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 20000)), avg = int(args.get("avg", 16));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(rows, rows, avg, powerlaw, unsigned(args.get("seed", 11)));
  int *rp = loops::to_device(a.rowptr), *ci = loops::to_device(a.col);
  float *v = loops::to_device(a.val), *x = loops::to_device(loops::random_floats(size_t(rows), 12));
  float *y = loops::device_zeros<float>(size_t(rows));
  const double bytes = 8.0 * a.val.size() + 4.0 * a.val.size() + 12.0 * rows;
  loops::timed(args, bytes, [&] { branchy_rows<<<(rows + 63) / 64, dim3(512, 1, 1) /* Sub-warp decomposition, width 8, was 64 */>>>(rp, ci, v, x, y, rows); });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  return 0;
}
