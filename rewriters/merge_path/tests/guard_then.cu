// merge-path's other guard form: the loop inside `if (row < n) { ... }`, with
// an epilogue that uses the row's sum (tests/rewrite/merge_path.cmake).
#include <cuda_runtime.h>

__global__ void scaled_row_max(const long long *offsets, const int *col, const double *val, double alpha, double *out,
                               long long n) {
  long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    double best = -1e300;
    for (long long j = offsets[row]; j < offsets[row + 1]; ++j) /*^*/
      best = max(best, val[j] * col[j]);
    out[row] = alpha * best;
  }
}

void run(const long long *offsets, const int *col, const double *val, double *out, long long n) {
  dim3 block(256);
  scaled_row_max<<<(unsigned)((n + 255) / 256), block>>>(offsets, col, val, 2.0, out, n);
}
