// CSR SpMV whose row index hard-codes the block size (`blockIdx.x * 32 +
// threadIdx.x`): merge-path applies, but the epilogue is not fused into the
// merge kernel (the row index is not the 1-D global index the runtime can
// check against the launch), so the row pass finishes the rows.
// tests/rewrite/merge_path.cmake, tests/gpu/merge_path.
#include "loops_harness.cuh"
#include <nestor/merge_path.cuh>

// merge-path (Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16):
// the iterations of the loop at line 12 for rows 0 .. rows - 1, split evenly (rows + iterations) over the
// blocks of a persistent grid; each row's value goes to 'spmv_fixed_block', which combines it in a fixed order.
// Not fused (the row pass runs 'spmv_fixed_block' after it): the row index is not a local initialised to blockIdx.x * blockDim.x + threadIdx.x.
__global__ void __launch_bounds__(nestor::mp::kBlock, nestor::mp::kMinBlocks) spmv_fixed_block_nestor_merge(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows, nestor::mp::state nestor_mp) {
  nestor::mp::merge_rows<float>(nestor_mp, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{});
}

__global__ void spmv_fixed_block(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows, nestor::mp::state nestor_mp = {}) {
  int row = blockIdx.x * 32 + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  // merge-path: the row's value from spmv_fixed_block_nestor_merge, which split the iterations evenly
  // over its blocks (reassociated); the loop as written runs without the merge pass.
  if (nestor_mp.ready())
    sum = nestor::op::add{}(sum, nestor_mp.row_result<float>(rowptr[row], rowptr[row + 1], row, nestor::op::add{}, rowptr[0]));
  else
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j)
      sum += val[j] * x[col[j]];
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
  loops::timed(args, bytes, [&] { nestor::mp::launch<float>(rows, spmv_fixed_block_nestor_merge, [&](nestor::mp::state nestor_s, int nestor_grid) {
    spmv_fixed_block_nestor_merge<<<nestor_grid, nestor::mp::kBlock>>>(rp, ci, v, x, y, rows, nestor_s);
  }, [&](nestor::mp::state nestor_s) {
    spmv_fixed_block<<<(rows + 31) / 32, 32>>>(rp, ci, v, x, y, rows, nestor_s);
  }); });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  return 0;
}
