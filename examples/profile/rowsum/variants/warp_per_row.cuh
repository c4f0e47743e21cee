// Variant: one warp per row; lanes read consecutive floats (coalesced) and
// combine their partial sums with warp shuffles.
#pragma once

__global__ void rowsum_warp_per_row(const float* matrix, float* sums, int rows, int cols) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* line = matrix + static_cast<size_t>(row) * cols;
  float sum = 0;
  for (int c = lane; c < cols; c += 32) sum += line[c];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) sums[row] = sum;
}

inline void launch_rowsum(const float* matrix, float* sums, int rows, int cols) {
  rowsum_warp_per_row<<<(rows * 32 + 255) / 256, 256>>>(matrix, sums, rows, cols);
}
