// Held-out case (bench/mapping/heldout17.tsv): the expansion cost of every
// node's root path (how many nodes a search that follows the path and
// expands every node on it generates on the way down: the sum of the child
// counts of the path's nodes below the root, the node itself included;
// what a beam or a best-first search over a game or a parse tree pays to
// reach a node, and the frontier a depth-first walker's open list holds),
// with a self-launching kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child writes its parent's value (written
// before the launch, so visible to the child grid) plus its OWN child count,
// read from the child offsets, and a child with children of its own
// launches the same kernel on them. A sum along root paths; integer, exact
// (each node is written once). Written for issue 22's seventeenth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 expand_cost.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef EC_BLOCK
#define EC_BLOCK 64
#endif

__global__ void descent_expansion_cost(const unsigned *first_child, const unsigned *kids, unsigned *cost,
                                       unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    unsigned n = first_child[c + 1] - first_child[c];
    cost[c] = cost[node] + n;
    if (n > 0) descent_expansion_cost<<<(n + EC_BLOCK - 1) / EC_BLOCK, EC_BLOCK>>>(first_child, kids, cost, c);
  }
}

static std::vector<uint32_t> descent_expansion_cost_ref(const tree::csr &t) {
  std::vector<uint32_t> e(t.nodes, 0u);  // the root: 0
  for (uint32_t v = 1; v < t.nodes; ++v) e[v] = e[t.parent[v]] + t.degree(v);  // parents first
  return e;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *cost, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    descent_expansion_cost<<<(root_degree + EC_BLOCK - 1) / EC_BLOCK, EC_BLOCK>>>(first_child, kids, cost, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("expand_cost", argc, argv, 0u, descent_expansion_cost_ref, run);
}
