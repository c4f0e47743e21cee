// CSR SpMV, one thread per row (the CTE paper's 1D baseline): the loop trip
// count is the row length, irregular on power-law matrices.
#include "loops_harness.cuh"
#include <nestor/cte.cuh>

__global__ void spmv_csr(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  // Rewrite loop with CTE ("Eliminating Intra-warp Load Imbalance in Irregular Nested Patterns via Collaborative Task Engagement", III-B): the warp expands its
  // threads' ranges into one list of fine tasks and reduces them per owner.
  sum = nestor::cte::for_each_index<32, nestor::cte::disjoint>(
      rowptr[row], rowptr[row + 1],
      [=](int j) { return val[j] * x[col[j]]; },
      nestor::op::add{}, sum);
  y[row] = sum;
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
  loops::timed(args, bytes, [&] { spmv_csr<<<(rows + 31) / 32, 32>>>(rp, ci, v, x, y, rows); });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  return 0;
}
