// Held-out case (bench/mapping/heldout14.tsv): every node's latency from the
// root of a distribution tree (a multicast or CDN overlay tree whose links
// each add a hop delay, 1 to 8 units, fixed by a hash of the link's LOWER end,
// the child), with a self-launching kernel (the recursion templates' input
// form, irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid
// per node over its children; each child writes its parent's latency
// (written before the launch, so visible to the child grid) plus its own
// link's delay, and a child with children of its own launches the same
// kernel on them. A sum along root paths; integer, exact (each node is
// written once). Written for issue 22's fourteenth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 root_latency.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef RL_BLOCK
#define RL_BLOCK 64
#endif

__host__ __device__ __forceinline__ unsigned link_delay(unsigned c) {
  unsigned h = c * 0x9E3779B9u + 1491u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return 1u + (h & 7u);
}

__global__ void root_latency(const unsigned *first_child, const unsigned *kids, unsigned *latency, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    latency[c] = latency[node] + link_delay(c);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) root_latency<<<(n + RL_BLOCK - 1) / RL_BLOCK, RL_BLOCK>>>(first_child, kids, latency, c);
  }
}

static std::vector<uint32_t> root_latency_ref(const tree::csr &t) {
  std::vector<uint32_t> l(t.nodes, 0u);  // the root: 0
  for (uint32_t v = 1; v < t.nodes; ++v) l[v] = l[t.parent[v]] + link_delay(v);  // parents come first
  return l;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *latency, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    root_latency<<<(root_degree + RL_BLOCK - 1) / RL_BLOCK, RL_BLOCK>>>(first_child, kids, latency, 0u);
}

int main(int argc, char **argv) { return tree::run_main("root_latency", argc, argv, 0u, root_latency_ref, run); }
