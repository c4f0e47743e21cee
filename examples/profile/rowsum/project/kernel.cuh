// Baseline: one thread per row. Neighbouring threads read addresses COLS
// floats apart, so every load of a warp touches 32 different cache lines.
#pragma once

__global__ void rowsum_thread_per_row(const float* matrix, float* sums, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0;
  for (int c = 0; c < cols; ++c) sum += matrix[static_cast<size_t>(row) * cols + c];
  sums[row] = sum;
}

inline void launch_rowsum(const float* matrix, float* sums, int rows, int cols) {
  rowsum_thread_per_row<<<(rows + 127) / 128, 128>>>(matrix, sums, rows, cols);
}
