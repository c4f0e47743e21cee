// Held-out case (bench/mapping/heldout15.tsv): the widest fan-out on every
// node's root path (the largest child count among its ancestors: the
// per-level buffer a breadth-first tree walker or a hierarchical broadcast
// must reserve to reach the node, and a bound used to size the stacks of a
// GPU tree traversal), with a self-launching kernel (the recursion
// templates' input form, irregular-loop-and-recursion-templates.md II-C,
// CDP2): one child grid per node over its children; each child writes the
// MAX of its parent's value (written before the launch, so visible to the
// child grid) and the PARENT's child count, read from the child offsets, and
// a child with children of its own launches the same kernel on them. A max
// along root paths; integer, exact (each node is written once). Written for
// issue 22's fifteenth held-out set, before any tuning on it; no weight of
// the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 fanout_bottleneck.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef FB_BLOCK
#define FB_BLOCK 64
#endif

__global__ void path_widest_fanout(const unsigned *first_child, const unsigned *kids, unsigned *widest,
                                   unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    widest[c] = max(widest[node], first_child[node + 1] - first_child[node]);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) path_widest_fanout<<<(n + FB_BLOCK - 1) / FB_BLOCK, FB_BLOCK>>>(first_child, kids, widest, c);
  }
}

static std::vector<uint32_t> path_widest_fanout_ref(const tree::csr &t) {
  std::vector<uint32_t> w(t.nodes, 0u);  // the root: 0
  for (uint32_t v = 1; v < t.nodes; ++v) w[v] = std::max(w[t.parent[v]], t.degree(t.parent[v]));  // parents first
  return w;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *widest, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    path_widest_fanout<<<(root_degree + FB_BLOCK - 1) / FB_BLOCK, FB_BLOCK>>>(first_child, kids, widest, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("fanout_bottleneck", argc, argv, 0u, path_widest_fanout_ref, run);
}
