// Held-out case (bench/mapping/heldout2.tsv): a top-down tree recursion with
// dynamic parallelism (the pre-order form of the recursion templates' input,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child adds its own weight to its parent's
// root-to-node cost, and a child with children of its own launches the same
// kernel on it (a path-cost labelling, as a scene-graph or file-system walk
// does it). Small children on deep narrow trees, large ones on wide trees.
// Held-out: no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 path_cost.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef PATH_BLOCK
#define PATH_BLOCK 64
#endif

// A node's own weight, 1..16, from its id.
__host__ __device__ inline unsigned node_weight(unsigned v) { return ((v * 2654435761u) >> 28) + 1u; }

__global__ void path_cost(const unsigned *first_child, const unsigned *kids, unsigned *cost, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    cost[c] = cost[node] + node_weight(c);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) path_cost<<<(n + PATH_BLOCK - 1) / PATH_BLOCK, PATH_BLOCK>>>(first_child, kids, cost, c);
  }
}

static std::vector<uint32_t> path_cost_ref(const tree::csr &t) {
  std::vector<uint32_t> c(t.nodes, 0);
  for (uint32_t v = 1; v < t.nodes; ++v) c[v] = c[t.parent[v]] + node_weight(v);  // parents come first
  return c;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *cost, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    path_cost<<<(root_degree + PATH_BLOCK - 1) / PATH_BLOCK, PATH_BLOCK>>>(first_child, kids, cost, 0u);
}

int main(int argc, char **argv) { return tree::run_main("path_cost", argc, argv, 0u, path_cost_ref, run); }
