// Shapes merge-path refuses (tests/rewrite/merge_path.cmake), each with the
// construct and its line.
#include <cuda_runtime.h>

// No guard bounds the rows: how many are there?
__global__ void no_guard(const int *rp, const float *v, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j]; /*^no_guard*/
  out[i] = s;
}

// A product that is not a built-in reduction of one accumulator.
__global__ void two_accumulators(const int *rp, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f, t = 0.0f;
  for (int j = rp[i]; j < rp[i + 1]; ++j) { /*^not_a_reduction*/
    s += v[j];
    t = s * 0.5f;
  }
  out[i] = s + t;
}

void host(const int *rp, const float *v, float *out, int n) {
  no_guard<<<(n + 127) / 128, 128>>>(rp, v, out);
  two_accumulators<<<(n + 127) / 128, 128>>>(rp, v, out, n);
}

// The row index changes after the guard.
__global__ void permuted(const int *rp, const int *perm, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  i = perm[i];
  float s = 0.0f;
  for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j]; /*^row_index_changed*/
  out[i] = s;
}

void host2(const int *rp, const int *perm, const float *v, float *out, int n) {
  permuted<<<(n + 127) / 128, 128>>>(rp, perm, v, out, n);
}

// A bool accumulator: the block scan's warp shuffles move 32/64-bit values.
__global__ void any_negative(const int *rp, const float *v, bool *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  bool any = false;
  for (int j = rp[i]; j < rp[i + 1]; ++j) any = any || v[j] < 0.0f; /*^bool_accumulator*/
  out[i] = any;
}

void host3(const int *rp, const float *v, bool *out, int n) {
  any_negative<<<(n + 127) / 128, 128>>>(rp, v, out, n);
}

// The bounds in locals (seen through), but the row's name is declared again
// before the loop: `rp[i]` re-emitted at the loop would read the other 'i'.
__global__ void shadowed_row(const int *rp, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int start = rp[i], end = rp[i + 1];
  float s = 0.0f;
  {
    int i = 2;
    s = float(i);
    for (int j = start; j < end; ++j) s += v[j]; /*^locals_shadowed*/
  }
  out[i] = s;
}

// A bound held in a local that is written after its declaration: no longer
// rp[i], not seen through.
__global__ void moved_start(const int *rp, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int start = rp[i];
  int end = rp[i + 1];
  if (start < end) ++start;
  float s = 0.0f;
  for (int j = start; j < end; ++j) s += v[j]; /*^local_written*/
  out[i] = s;
}

void host4(const int *rp, const float *v, float *out, int n) {
  shadowed_row<<<(n + 127) / 128, 128>>>(rp, v, out, n);
  moved_start<<<(n + 127) / 128, 128>>>(rp, v, out, n);
}
