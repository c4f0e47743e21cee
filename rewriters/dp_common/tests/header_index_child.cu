// A child whose thread index comes from a helper in a project header: a
// clone of the child run in its parent thread (threshold), in an aggregated
// grid (aggregate, coarsen) or by a draining block (the launch templates)
// renames the built-ins in its own body, not in the header's helper, which
// would read the parent's. Each refuses, naming the helper and the call.
#include "child_index.cuh"

__global__ void scale_neighbours(float *w, const unsigned *adj, unsigned first, unsigned n) {
  unsigned t = child_thread();
  if (t < n) w[adj[first + t]] *= 0.5f;
}

__global__ void scale_rows(float *w, const unsigned *adj, const unsigned *row, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && row[r + 1] > row[r])
    scale_neighbours<<<(row[r + 1] - row[r] + 31) / 32, 32>>>(w, adj, row[r], row[r + 1] - row[r]);
}

int main() {
  scale_rows<<<1, 32>>>(nullptr, nullptr, nullptr, 0);
  return 0;
}
