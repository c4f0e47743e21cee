// Held-out case (bench/mapping/heldout18.tsv): how many nodes a depth-first
// walker's stack holds when it reaches every node (the pending later
// siblings of every node on the root path, the node's own included: the
// memory bound an iterative tree walker, a backtracking solver or a
// depth-first file-system crawler needs on the way to it), with a
// self-launching kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child writes its parent's value (written
// before the launch, so visible to the child grid) plus the number of
// siblings after its OWN slot, read from the child offsets, and a child
// with children of its own launches the same kernel on them. A sum along
// root paths; integer, exact (each node is written once). Written for issue
// 22's eighteenth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 dfs_stack.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef DS_BLOCK
#define DS_BLOCK 64
#endif

__global__ void dfs_pending_siblings(const unsigned *first_child, const unsigned *kids, unsigned *pending,
                                     unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    pending[c] = pending[node] + (first_child[node + 1] - 1u - s);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) dfs_pending_siblings<<<(n + DS_BLOCK - 1) / DS_BLOCK, DS_BLOCK>>>(first_child, kids, pending, c);
  }
}

static std::vector<uint32_t> dfs_pending_siblings_ref(const tree::csr &t) {
  std::vector<uint32_t> q(t.nodes, 0u);  // the root: 0
  for (uint32_t p = 0; p < t.nodes; ++p)  // parents come first
    for (uint32_t s = t.child_offsets[p]; s < t.child_offsets[p + 1]; ++s)
      q[t.children[s]] = q[p] + (t.child_offsets[p + 1] - 1u - s);
  return q;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *pending, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    dfs_pending_siblings<<<(root_degree + DS_BLOCK - 1) / DS_BLOCK, DS_BLOCK>>>(first_child, kids, pending, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("dfs_stack", argc, argv, 0u, dfs_pending_siblings_ref, run);
}
