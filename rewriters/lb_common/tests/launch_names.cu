// A device launch whose arguments name the parent's locals `t`, `b`, `bd`
// and `gd`: a launch template that runs small launches in the parent thread
// must pass these, not names of its own (tests/rewrite: the eleventh
// held-out set's gossip round, `t - 1`, did not compile).
#include <cuda_runtime.h>

__global__ void spread(const unsigned *adj, unsigned first, unsigned deg, int level, int weight, int bias, int shift,
                       int *out) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) atomicMax(&out[adj[first + j]], level + weight + bias + shift);
}

__global__ void names_parent(const unsigned *row, const unsigned *adj, const int *ttl, int *out, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nv) return;
  int t = ttl[v];
  if (t <= 0) return;
  int b = t / 2, bd = t % 3, gd = 1;
  unsigned first = row[v];
  unsigned deg = row[v + 1] - first;
  if (deg > 0)
    spread<<<(deg + 63) / 64, 64>>>(adj, first, deg, t - 1, b, bd, gd, out); /*^names*/
}

void names_round(const unsigned *row, const unsigned *adj, const int *ttl, int *out, unsigned nv) {
  names_parent<<<(nv + 127) / 128, 128>>>(row, adj, ttl, out, nv);
}
