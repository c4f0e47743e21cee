// One thread per row with its CSR bounds in locals, as Li, Wu and Becchi's own
// SpMV is written (issue #21, "match meaning, not spelling"): the locals are
// seen through (nestor/DefUse.h), so the templates apply; a bound written
// again after its declaration, or whose address is taken, is not seen through
// (tests/rewrite/templates.cmake).
#include <cuda_runtime.h>

__device__ void clamp_end(int *end, int start) {
  if (*end - start > 4096) *end = start + 4096;
}

__global__ void spmv_locals(const int *ptr, const int *indices, const float *data, const float *x, float *y, int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < rows) {
    float sum = 0.0f;
    int start = ptr[tid];
    int end = ptr[tid + 1];
    for (int i = start; i < end; ++i) sum += data[i] * x[indices[i]]; /*^locals*/
    y[tid] = sum;
  }
}

// `end` is written again after its declaration: its value at the loop is not ptr[tid + 1].
__global__ void spmv_capped(const int *ptr, const float *data, float *y, int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= rows) return;
  int start = ptr[tid];
  int end = ptr[tid + 1];
  if (end - start > 4096) end = start + 4096;
  float sum = 0.0f;
  for (int i = start; i < end; ++i) sum += data[i]; /*^written_again*/
  y[tid] = sum;
}

// `end`'s address is taken: a callee may write it.
__global__ void spmv_address_taken(const int *ptr, const float *data, float *y, int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= rows) return;
  int start = ptr[tid];
  int end = ptr[tid + 1];
  clamp_end(&end, start);
  float sum = 0.0f;
  for (int i = start; i < end; ++i) sum += data[i]; /*^address_taken*/
  y[tid] = sum;
}

void spmv(const int *ptr, const int *indices, const float *data, const float *x, float *y, int rows) {
  spmv_locals<<<(rows + 255) / 256, 256>>>(ptr, indices, data, x, y, rows);
  spmv_capped<<<(rows + 255) / 256, 256>>>(ptr, data, y, rows);
  spmv_address_taken<<<(rows + 255) / 256, 256>>>(ptr, data, y, rows);
}
