// Held-out case (bench/mapping/heldout10.tsv): the largest key on every
// node's path from the root (the bottleneck of a root path: the check a
// treap or a max-heap-ordered tree runs, or the highest priority a
// scheduler's task inherits from the tasks above it) with a self-launching
// kernel (the recursion templates' input form, irregular-loop-and-recursion-
// templates.md II-C, CDP2): one child grid per node over its children; each
// child writes the larger of its parent's value (written before the launch,
// so visible to the child grid) and its own key (a hash of its id), and a
// child with children of its own launches the same kernel on them. Integer,
// exact (each node is written once). Written for issue 22's tenth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it. (It replaces dewey_label, the same trees' Dewey-order path labels,
// which was offered no rewrite; see heldout10.tsv's header.)
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 path_max_key.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef PMK_BLOCK
#define PMK_BLOCK 64
#endif

__host__ __device__ __forceinline__ unsigned node_key(unsigned v) {  // in [0, 2^20)
  v = v * 0x9E3779B9u + 1081u;
  v ^= v >> 16;
  v *= 0x7FEB352Du;
  v ^= v >> 15;
  v *= 0x846CA68Bu;
  v ^= v >> 16;
  return v >> 12;
}

__global__ void path_max_key(const unsigned *first_child, const unsigned *kids, unsigned *best, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    best[c] = max(best[node], node_key(c));
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) path_max_key<<<(n + PMK_BLOCK - 1) / PMK_BLOCK, PMK_BLOCK>>>(first_child, kids, best, c);
  }
}

static std::vector<uint32_t> path_max_ref(const tree::csr &t) {
  std::vector<uint32_t> b(t.nodes, 0u);  // the root keeps the initial value 0
  for (uint32_t v = 1; v < t.nodes; ++v) b[v] = std::max(b[t.parent[v]], node_key(v));  // parents come first
  return b;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *best, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    path_max_key<<<(root_degree + PMK_BLOCK - 1) / PMK_BLOCK, PMK_BLOCK>>>(first_child, kids, best, 0u);
}

int main(int argc, char **argv) { return tree::run_main("path_max_key", argc, argv, 0u, path_max_ref, run); }
