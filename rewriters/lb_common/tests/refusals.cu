// Shapes the load-balancing templates (dual-queue, dbuf-shared, dbuf-global)
// refuse, each with the construct and its line (tests/rewrite/templates.cmake).
#include <cuda_runtime.h>

// Bounds that are not a CSR-like pair.
__global__ void not_csr(const int *lo, const int *hi, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = lo[i]; j < hi[i]; ++j) s += v[j]; /*^not_csr*/
  out[i] = s;
}

// An outer loop carrying state between its iterations.
__global__ void carried(const int *rp, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float carry = 0.0f;
  for (int r = i; r < n; r += 1000) {
    float s = carry;
    for (int j = rp[r]; j < rp[r + 1]; ++j) s += v[j]; /*^nested*/
    carry = s;
  }
  if (i < n) out[i] = carry;
}

// A __shared__ tile the block-mapped phase cannot follow.
__global__ void uses_shared(const int *rp, const float *v, float *out, int n) {
  __shared__ float tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x % 64] = 1.0f;
  __syncthreads();
  if (i >= n) return;
  float s = tile[threadIdx.x % 64];
  for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j]; /*^shared*/
  out[i] = s;
}

// A store before the loop: a delayed thread would repeat it.
__global__ void writes_before(const int *rp, const float *v, float *out, int *seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  seen[i] = 1;
  float s = 0.0f;
  for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j]; /*^store_before_loop*/
  out[i] = s;
}

// The loop body reads the thread's own local besides the index.
__global__ void reads_local(const int *rp, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float scale = 0.5f * i, s = 0.0f;
  for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j] * scale; /*^reads_local*/
  out[i] = s;
}

// Launched on a named stream (dbuf-global, dual-queue).
__global__ void on_stream(const int *rp, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j]; /*^named_stream*/
  out[i] = s;
}

void host(const int *rp, const float *v, float *out, int n, cudaStream_t st) {
  on_stream<<<(n + 127) / 128, 128, 0, st>>>(rp, v, out, n);
}
