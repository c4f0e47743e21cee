// Held-out case (bench/mapping/heldout16.tsv): the sum of sibling positions
// along every node's root path (the digit sum of its Dewey label, 0.2.1 ->
// 3: how far right of the leftmost branch a node hangs, the order key an
// XML or DOM tree indexer uses to break depth ties, and a cheap per-node
// signature of its path), with a self-launching kernel (the recursion
// templates' input form, irregular-loop-and-recursion-templates.md II-C,
// CDP2): one child grid per node over its children; each child writes its
// parent's value (written before the launch, so visible to the child grid)
// plus its OWN position among its siblings, the slot index less the
// parent's first child offset, and a child with children of its own
// launches the same kernel on them. A sum along root paths; integer, exact
// (each node is written once). Written for issue 22's sixteenth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 sibling_path.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef SX_BLOCK
#define SX_BLOCK 64
#endif

__global__ void sibling_index_sum(const unsigned *first_child, const unsigned *kids, unsigned *dewey, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    dewey[c] = dewey[node] + (s - first_child[node]);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) sibling_index_sum<<<(n + SX_BLOCK - 1) / SX_BLOCK, SX_BLOCK>>>(first_child, kids, dewey, c);
  }
}

static std::vector<uint32_t> sibling_index_sum_ref(const tree::csr &t) {
  std::vector<uint32_t> d(t.nodes, 0u);  // the root: 0
  for (uint32_t p = 0; p < t.nodes; ++p)  // parents come first
    for (uint32_t s = t.child_offsets[p]; s < t.child_offsets[p + 1]; ++s)
      d[t.children[s]] = d[p] + (s - t.child_offsets[p]);
  return d;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *dewey, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    sibling_index_sum<<<(root_degree + SX_BLOCK - 1) / SX_BLOCK, SX_BLOCK>>>(first_child, kids, dewey, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("sibling_path", argc, argv, 0u, sibling_index_sum_ref, run);
}
