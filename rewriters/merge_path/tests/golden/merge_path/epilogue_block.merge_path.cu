// merge-path on a kernel whose per-row epilogue also adds the row's sum to
// its block's total (reads blockIdx): the epilogue cannot be replayed for the
// row by another thread, so it is not fused; the row pass runs it
// (tests/rewrite/merge_path.cmake, compile check only).
#include <cuda_runtime.h>
#include <nestor/merge_path.cuh>

// merge-path (Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16):
// the iterations of the loop at line 12 for rows 0 .. rows - 1, split evenly (rows + iterations) over the
// blocks of a persistent grid; each row's value goes to 'spmv_block_totals', which combines it in a fixed order.
// Not fused (the row pass runs 'spmv_block_totals' after it): the statement at line 15 reads blockIdx.
__global__ void __launch_bounds__(nestor::mp::kBlock, nestor::mp::kMinBlocks) spmv_block_totals_nestor_merge(const int *rowptr, const int *col, const float *val, const float *x, float *y, float *blockTotal, int rows, nestor::mp::state nestor_mp) {
  nestor::mp::merge_rows<float>(nestor_mp, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{});
}

__global__ void spmv_block_totals(const int *rowptr, const int *col, const float *val, const float *x, float *y,
                                  float *blockTotal, int rows, nestor::mp::state nestor_mp = {}) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  // merge-path: the row's value from spmv_block_totals_nestor_merge, which split the iterations evenly
  // over its blocks (reassociated); the loop as written runs without the merge pass.
  if (nestor_mp.ready())
    sum = nestor::op::add{}(sum, nestor_mp.row_result<float>(rowptr[row], rowptr[row + 1], row, nestor::op::add{}, rowptr[0]));
  else
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j)
      sum += val[j] * x[col[j]];
  y[row] = sum;
  atomicAdd(&blockTotal[blockIdx.x], sum);
}

void run(const int *rowptr, const int *col, const float *val, const float *x, float *y, float *totals, int rows) {
  nestor::mp::launch<float>(rows, spmv_block_totals_nestor_merge, [&](nestor::mp::state nestor_s, int nestor_grid) {
    spmv_block_totals_nestor_merge<<<nestor_grid, nestor::mp::kBlock>>>(rowptr, col, val, x, y, totals, rows, nestor_s);
  }, [&](nestor::mp::state nestor_s) {
    spmv_block_totals<<<(rows + 127) / 128, 128>>>(rowptr, col, val, x, y, totals, rows, nestor_s);
  });
}
