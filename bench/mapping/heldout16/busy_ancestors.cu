// Held-out case (bench/mapping/heldout16.tsv): how many of every node's
// ancestors are busy, with four or more children (the branching points a
// hierarchical lock manager or a B-tree latch-crabbing walk must pass, and
// a proxy for the contention on a node's root path), with a self-launching
// kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child writes its parent's value (written
// before the launch, so visible to the child grid) plus 1 when the PARENT's
// child count, read from the child offsets, is at least 4, and a child with
// children of its own launches the same kernel on them. A count along root
// paths; integer, exact (each node is written once). Written for issue 22's
// sixteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 busy_ancestors.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef BA_BLOCK
#define BA_BLOCK 64
#endif

__global__ void busy_ancestor_count(const unsigned *first_child, const unsigned *kids, unsigned *busy,
                                    unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    busy[c] = busy[node] + (first_child[node + 1] - first_child[node] >= 4u ? 1u : 0u);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) busy_ancestor_count<<<(n + BA_BLOCK - 1) / BA_BLOCK, BA_BLOCK>>>(first_child, kids, busy, c);
  }
}

static std::vector<uint32_t> busy_ancestor_count_ref(const tree::csr &t) {
  std::vector<uint32_t> b(t.nodes, 0u);  // the root: 0
  for (uint32_t v = 1; v < t.nodes; ++v) b[v] = b[t.parent[v]] + (t.degree(t.parent[v]) >= 4u ? 1u : 0u);  // parents first
  return b;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *busy, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    busy_ancestor_count<<<(root_degree + BA_BLOCK - 1) / BA_BLOCK, BA_BLOCK>>>(first_child, kids, busy, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("busy_ancestors", argc, argv, 0u, busy_ancestor_count_ref, run);
}
