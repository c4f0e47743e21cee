// Shapes the load-balancing templates (dual-queue, dbuf-shared, dbuf-global)
// refuse, each with the construct and its line (tests/rewrite/templates.cmake).
#include <cuda_runtime.h>
#include <nestor/templates.cuh>

// Bounds that are not a CSR-like pair.
__global__ void not_csr(const int *lo, const int *hi, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = lo[i]; j < hi[i]; ++j) s += v[j];
  out[i] = s;
}

// An outer loop carrying state between its iterations.
__global__ void carried(const int *rp, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float carry = 0.0f;
  for (int r = i; r < n; r += 1000) {
    float s = carry;
    for (int j = rp[r]; j < rp[r + 1]; ++j) s += v[j];
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
  for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j];
  out[i] = s;
}

// A store before the loop: a delayed thread would repeat it.
__global__ void writes_before(const int *rp, const float *v, float *out, int *seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  seen[i] = 1;
  float s = 0.0f;
  for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j];
  out[i] = s;
}

// The loop body reads the thread's own local besides the index.
__global__ void reads_local(const int *rp, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float scale = 0.5f * i, s = 0.0f;
  for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j] * scale;
  out[i] = s;
}

// Launched on a named stream (dbuf-global, dual-queue).
// The body of 'on_stream' for the dbuf-shared template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void on_stream_nestor_body(const int *rp, const float *v, float *out, int n, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  // dbuf-shared ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
  // trip count is 64 or more, or hands back its block-computed reduction.
  if (nestor_phase.defer(rp[i], rp[i + 1])) return;
  if (nestor_phase.has_result()) s = nestor::op::add{}(s, nestor_phase.template result<float>());
  else
    for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j];
  out[i] = s;
}

__global__ void on_stream(const int *rp, const float *v, float *out, int n) {
  // dbuf-shared, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(c)): rows whose loop
  // has 64 or more iterations are delayed to a per-block buffer in shared memory (128 slots, then a
  // global overflow), reduced by the whole block after the thread-mapped pass, and finished by their owner.
  nestor::tmpl::dbuf_shared<int, float, 128>(64, [=](int j) { return v[j]; }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    on_stream_nestor_body(rp, v, out, n, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
}

void host(const int *rp, const float *v, float *out, int n, cudaStream_t st) {
  on_stream<<<(n + 127) / 128, 128, 0, st>>>(rp, v, out, n);
}
