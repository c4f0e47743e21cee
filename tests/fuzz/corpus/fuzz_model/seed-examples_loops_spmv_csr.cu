// CSR sparse matrix-vector product, one thread per row: the row loop's trip
// count differs per thread, so lanes of a warp idle (np-irregular-loop).
// CTE or sub-warp decomposition balance the work.
#include <cuda_runtime.h>

__global__ void spmv_csr(const int *row_ptr, const int *cols, const float *vals, const float *x, float *y,
                         int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float dot = 0;
  for (int e = row_ptr[row]; e < row_ptr[row + 1]; ++e)
    dot += vals[e] * x[cols[e]];
  y[row] = dot;
}

void spmv(const int *row_ptr, const int *cols, const float *vals, const float *x, float *y, int rows) {
  spmv_csr<<<(rows + 255) / 256, 256>>>(row_ptr, cols, vals, x, y, rows);
}
