// merge-path applies to both kernels, but neither epilogue can be replayed
// for its row by another thread, so the row pass finishes the rows
// (tests/rewrite/merge_path.cmake, compile checks only):
//   spmv_lane_stats  the epilogue calls a helper that reads threadIdx;
//   spmv_mark_end    the guard has an else branch: a thread without a row
//                    (the one just past the last) writes memory.
#include <cuda_runtime.h>

__device__ void store_with_lane(float *y, int *lane, int row, float v) {
  y[row] = v;
  lane[row] = int(threadIdx.x & 31u);
}

__global__ void spmv_lane_stats(const int *rowptr, const int *col, const float *val, const float *x, float *y, int *lane,
                                int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int j = rowptr[row]; j < rowptr[row + 1]; ++j) /*^helper_lane*/
    sum += val[j] * x[col[j]];
  store_with_lane(y, lane, row, sum);
}

__global__ void spmv_mark_end(const int *rowptr, const int *col, const float *val, const float *x, float *y, int *done,
                              int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j) /*^guard_else*/
      sum += val[j] * x[col[j]];
    y[row] = sum;
  } else if (row == rows) {
    *done = 1;
  }
}

void run(const int *rowptr, const int *col, const float *val, const float *x, float *y, int *lane, int *done, int rows) {
  spmv_lane_stats<<<(rows + 127) / 128, 128>>>(rowptr, col, val, x, y, lane, rows);
  spmv_mark_end<<<rows / 128 + 1, 128>>>(rowptr, col, val, x, y, done, rows);
}
