// Held-out case (bench/mapping/heldout6.tsv): the heavy child of every node of
// a tree with a self-launching kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2; the first step of a
// heavy-light decomposition, or of a scene-graph or task-tree balancer that
// follows each node's heaviest branch): one child grid per node over its
// children; each child offers the key (its weight << 20 | its id), weight
// 1..64 from its id, to its parent's slot with atomicMax, and a child with
// children of its own launches the same kernel on them. The result holds,
// for every node, the key of its heaviest child (ties to the larger id; 0 for
// a leaf); integer atomics, exact in any order. Written for issue 22's sixth
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it. (It replaces a hashed Dewey labelling of the same trees, for
// which no rewrite was offered.)
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 heavy_child.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef HEAVY_BLOCK
#define HEAVY_BLOCK 64
#endif

// A node's key: its weight, 1..64 from its id, above its id (ids < 2^20).
__host__ __device__ inline unsigned heavy_key(unsigned v) { return ((((v * 2246822519u) >> 26) + 1u) << 20) | v; }

__global__ void pick_heavy_child(const unsigned *first_child, const unsigned *kids, unsigned *heavy, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    atomicMax(&heavy[node], heavy_key(c));
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) pick_heavy_child<<<(n + HEAVY_BLOCK - 1) / HEAVY_BLOCK, HEAVY_BLOCK>>>(first_child, kids, heavy, c);
  }
}

static std::vector<uint32_t> heavy_child_ref(const tree::csr &t) {
  std::vector<uint32_t> heavy(t.nodes, 0);
  for (uint32_t v = 1; v < t.nodes; ++v) heavy[t.parent[v]] = std::max(heavy[t.parent[v]], heavy_key(v));
  return heavy;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *heavy, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    pick_heavy_child<<<(root_degree + HEAVY_BLOCK - 1) / HEAVY_BLOCK, HEAVY_BLOCK>>>(first_child, kids, heavy, 0u);
}

int main(int argc, char **argv) { return tree::run_main("heavy_child", argc, argv, 0u, heavy_child_ref, run); }
