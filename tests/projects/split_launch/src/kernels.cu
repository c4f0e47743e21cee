// The kernels of the project: one thread per row, a loop over the row inside it.
#include "row_stats.cuh"

__global__ void row_norms(const float *m, float *norms, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int c = 0; c < kCols; ++c) {
    float v = m[row * kCols + c];
    sum += v * v;
  }
  norms[row] = sum;
}

// Per node, the sum of its edges' weights (CSR): an irregular loop per thread.
__global__ void neighbour_weights(const int *offsets, const float *weights, float *sums, int nodes) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nodes) return;
  const int begin = offsets[v];
  const int end = offsets[v + 1];
  float total = 0.0f;
  for (int e = begin; e < end; ++e) total += weights[e];
  sums[v] = total;
}
