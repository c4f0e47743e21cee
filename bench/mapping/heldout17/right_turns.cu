// Held-out case (bench/mapping/heldout17.tsv): how many times every node's
// root path takes the LAST branch (the number of right-spine steps: in a
// breadth-first-numbered tree the nodes whose count equals their depth lie
// on the rightmost spine, the insertion path of an append-only B-tree, a
// rope or a heap-ordered log; and the count tells a right-to-left traversal
// how soon it meets a node), with a self-launching kernel (the recursion
// templates' input form, irregular-loop-and-recursion-templates.md II-C,
// CDP2): one child grid per node over its children; each child writes its
// parent's value (written before the launch, so visible to the child grid)
// plus 1 when its OWN slot is the parent's last, read from the child
// offsets, and a child with children of its own launches the same kernel on
// them. A count along root paths; integer, exact (each node is written
// once). Written for issue 22's seventeenth held-out set, before any tuning
// on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 right_turns.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef RT_BLOCK
#define RT_BLOCK 64
#endif

__global__ void rightmost_turn_count(const unsigned *first_child, const unsigned *kids, unsigned *turns,
                                     unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    turns[c] = turns[node] + (s + 1u == first_child[node + 1] ? 1u : 0u);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) rightmost_turn_count<<<(n + RT_BLOCK - 1) / RT_BLOCK, RT_BLOCK>>>(first_child, kids, turns, c);
  }
}

static std::vector<uint32_t> rightmost_turn_count_ref(const tree::csr &t) {
  std::vector<uint32_t> r(t.nodes, 0u);  // the root: 0
  for (uint32_t p = 0; p < t.nodes; ++p)  // parents come first
    for (uint32_t s = t.child_offsets[p]; s < t.child_offsets[p + 1]; ++s)
      r[t.children[s]] = r[p] + (s + 1u == t.child_offsets[p + 1] ? 1u : 0u);
  return r;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *turns, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    rightmost_turn_count<<<(root_degree + RT_BLOCK - 1) / RT_BLOCK, RT_BLOCK>>>(first_child, kids, turns, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("right_turns", argc, argv, 0u, rightmost_turn_count_ref, run);
}
