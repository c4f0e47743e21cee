// Declarations shared by the host code and the kernels.
#pragma once

constexpr int kCols = 64;

__global__ void row_norms(const float *m, float *norms, int rows);
__global__ void neighbour_weights(const int *offsets, const float *weights, float *sums, int nodes);
