// Held-out case (bench/mapping/heldout5.tsv): the total weight of every
// node's direct children with a self-launching kernel (the recursion
// templates' input form, irregular-loop-and-recursion-templates.md II-C,
// CDP2; the per-node load a B-tree, scene-graph or task-tree balancer checks
// before it splits a node): one child grid per node over its children; each
// child adds its own weight (1..16, from its id) to its parent's slot with
// atomicAdd, and a child with children of its own launches the same kernel on
// them. The result holds, for every node, the sum of its children's weights
// (0 for a leaf); integer atomics, exact. Written for issue 22's fifth
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it. (It replaces a grandchild census, for which fewer than two
// rewrites were offered.)
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 child_weights.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef KIDW_BLOCK
#define KIDW_BLOCK 64
#endif

// A node's weight, 1..16, from its id.
__host__ __device__ inline unsigned node_load(unsigned v) { return ((v * 2654435761u) >> 28) + 1u; }

__global__ void child_weight_sum(const unsigned *first_child, const unsigned *kids, unsigned *load, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    atomicAdd(&load[node], node_load(c));
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) child_weight_sum<<<(n + KIDW_BLOCK - 1) / KIDW_BLOCK, KIDW_BLOCK>>>(first_child, kids, load, c);
  }
}

static std::vector<uint32_t> child_weights_ref(const tree::csr &t) {
  std::vector<uint32_t> load(t.nodes, 0);
  for (uint32_t v = 1; v < t.nodes; ++v) load[t.parent[v]] += node_load(v);
  return load;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *load, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    child_weight_sum<<<(root_degree + KIDW_BLOCK - 1) / KIDW_BLOCK, KIDW_BLOCK>>>(first_child, kids, load, 0u);
}

int main(int argc, char **argv) { return tree::run_main("child_weights", argc, argv, 0u, child_weights_ref, run); }
