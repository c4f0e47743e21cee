// Conditional updates the map/reduce matcher (rewriters/loop_common) refuses,
// each with the construct and its span: `if (c) acc OP= x` is folding
// `c ? x : 0` only when the branch has no else, 0 is OP's identity, the
// update adds what is written, and c has no effect (the cases of cte and
// subwarp read this file).
#include <cuda_runtime.h>

// An else branch: the false case updates too.
__global__ void if_else(const int *row, const int *adj, const int *label, int *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int cnt = 0;
  for (int e = row[v]; e < row[v + 1]; ++e) /*^if_else*/
    if (label[adj[e]] == label[v]) ++cnt;
    else cnt += 2;
  out[v] = cnt;
}

// A conditional max: its identity is the lowest value, not 0.
__global__ void cond_max(const int *row, const float *w, float *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  float best = -1.0f;
  for (int e = row[v]; e < row[v + 1]; ++e) /*^cond_max*/
    if (w[e] > 0.5f) best = fmaxf(best, w[e]);
  out[v] = best;
}

// A conditional subtraction.
__global__ void cond_subtract(const int *row, const int *adj, const int *label, int *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int cnt = 0;
  for (int e = row[v]; e < row[v + 1]; ++e) /*^cond_subtract*/
    if (label[adj[e]] != label[v]) cnt -= 2;
  out[v] = cnt;
}

// A condition that stores.
__global__ void cond_stores(const int *row, const int *adj, const int *label, int *seen, int *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int cnt = 0;
  for (int e = row[v]; e < row[v + 1]; ++e) /*^cond_stores*/
    if ((seen[e] = label[adj[e]]) == label[v]) ++cnt;
  out[v] = cnt;
}

// A conditional branch of two statements.
__global__ void two_updates(const int *row, const int *adj, const int *label, int *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int cnt = 0, other = 0;
  for (int e = row[v]; e < row[v + 1]; ++e) /*^two_updates*/
    if (label[adj[e]] == label[v]) {
      ++cnt;
      other += 2;
    }
  out[v] = cnt + other;
}
