// Held-out case (bench/mapping/heldout9.tsv): every node's depth in the
// path-compressed form of a tree (the depth a radix / Patricia trie or a
// compressed suffix tree gives a node once chains of single-child nodes are
// merged: the number of its proper ancestors with more than one child) with a
// self-launching kernel (the recursion templates' input form, irregular-loop-
// and-recursion-templates.md II-C, CDP2): one child grid per node over its
// children; each child writes its depth from its parent's (written before
// the launch, so visible to the child grid) plus one when the parent
// branches, and a child with children of its own launches the same kernel on
// them. Integer, exact (each node is written once). Written for issue 22's
// ninth held-out set, before any tuning on it; no weight of the mapping model
// was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 patricia_depth.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef PAT_BLOCK
#define PAT_BLOCK 64
#endif

__global__ void patricia_depth(const unsigned *first_child, const unsigned *kids, unsigned *depth, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    unsigned branches = first_child[node + 1] - first_child[node] > 1 ? 1u : 0u;
    depth[c] = depth[node] + branches;
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) patricia_depth<<<(n + PAT_BLOCK - 1) / PAT_BLOCK, PAT_BLOCK>>>(first_child, kids, depth, c);
  }
}

static std::vector<uint32_t> patricia_ref(const tree::csr &t) {
  std::vector<uint32_t> d(t.nodes, 0);
  for (uint32_t v = 1; v < t.nodes; ++v) d[v] = d[t.parent[v]] + (t.degree(t.parent[v]) > 1 ? 1u : 0u);
  return d;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *depth, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    patricia_depth<<<(root_degree + PAT_BLOCK - 1) / PAT_BLOCK, PAT_BLOCK>>>(first_child, kids, depth, 0u);
}

int main(int argc, char **argv) { return tree::run_main("patricia_depth", argc, argv, 0u, patricia_ref, run); }
