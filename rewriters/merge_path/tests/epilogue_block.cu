// merge-path on a kernel whose per-row epilogue also adds the row's sum to
// its block's total (reads blockIdx): the epilogue cannot be replayed for the
// row by another thread, so it is not fused; the row pass runs it
// (tests/rewrite/merge_path.cmake, compile check only).
#include <cuda_runtime.h>

__global__ void spmv_block_totals(const int *rowptr, const int *col, const float *val, const float *x, float *y,
                                  float *blockTotal, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int j = rowptr[row]; j < rowptr[row + 1]; ++j) /*^*/
    sum += val[j] * x[col[j]];
  y[row] = sum;
  atomicAdd(&blockTotal[blockIdx.x], sum);
}

void run(const int *rowptr, const int *col, const float *val, const float *x, float *y, float *totals, int rows) {
  spmv_block_totals<<<(rows + 127) / 128, 128>>>(rowptr, col, val, x, y, totals, rows);
}
