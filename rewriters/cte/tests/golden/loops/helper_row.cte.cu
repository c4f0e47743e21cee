// CSR row sums whose row index comes from a __device__ helper, as many
// projects write it: the trip count is irregular through the helper, CTE is
// offered (the helper is outside the loop), and CUDA-NP, sub-warp and the
// loop templates refuse (the helper reads the built-ins they change).
#include "loops_harness.cuh"
#include <nestor/cte.cuh>

__device__ int row_of_thread() { return blockIdx.x * blockDim.x + threadIdx.x; }

__global__ void helper_row(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows) {
  int row = row_of_thread();
  if (row >= rows) return;
  float sum = 0.0f;
  // Rewrite loop with CTE ("Eliminating Intra-warp Load Imbalance in Irregular Nested Patterns via Collaborative Task Engagement", III-B): the warp expands its
  // threads' ranges into one list of fine tasks and reduces them per owner.
  sum = nestor::cte::for_each_index<128, nestor::cte::scanned>(
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
  loops::Csr a = loops::make_csr(rows, rows, avg, powerlaw, unsigned(args.get("seed", 13)));
  int *rp = loops::to_device(a.rowptr), *ci = loops::to_device(a.col);
  float *v = loops::to_device(a.val), *x = loops::to_device(loops::random_floats(size_t(rows), 9));
  float *y = loops::device_zeros<float>(size_t(rows));
  const double bytes = 12.0 * a.val.size() + 12.0 * rows;
  loops::timed(args, bytes, [&] { helper_row<<<(rows + 127) / 128, 128>>>(rp, ci, v, x, y, rows); });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  return 0;
}
