// Held-out case (bench/mapping/heldout18.tsv): the digit sum of every node's
// Dewey address (the sum of the sibling indices along the root path: the
// address an XML store or a hierarchical key-value index gives a node is
// the list of those indices, and the sum orders nodes for a left-leaning
// traversal and serves as a cheap hash bucket), with a self-launching kernel
// (the recursion templates' input form, irregular-loop-and-recursion-
// templates.md II-C, CDP2): one child grid per node over its children; each
// child writes its parent's value (written before the launch, so visible to
// the child grid) plus its OWN index among its siblings (its slot less the
// parent's first child offset), and a child with children of its own
// launches the same kernel on them. A sum along root paths; integer, exact
// (each node is written once). Written for issue 22's eighteenth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 branch_digits.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef BD_BLOCK
#define BD_BLOCK 64
#endif

__global__ void branch_digit_sum(const unsigned *first_child, const unsigned *kids, unsigned *digits, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    digits[c] = digits[node] + (s - first_child[node]);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) branch_digit_sum<<<(n + BD_BLOCK - 1) / BD_BLOCK, BD_BLOCK>>>(first_child, kids, digits, c);
  }
}

static std::vector<uint32_t> branch_digit_sum_ref(const tree::csr &t) {
  std::vector<uint32_t> d(t.nodes, 0u);  // the root: 0
  for (uint32_t p = 0; p < t.nodes; ++p)  // parents come first
    for (uint32_t s = t.child_offsets[p]; s < t.child_offsets[p + 1]; ++s)
      d[t.children[s]] = d[p] + (s - t.child_offsets[p]);
  return d;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *digits, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    branch_digit_sum<<<(root_degree + BD_BLOCK - 1) / BD_BLOCK, BD_BLOCK>>>(first_child, kids, digits, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("branch_digits", argc, argv, 0u, branch_digit_sum_ref, run);
}
