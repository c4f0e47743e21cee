// Held-out case (bench/mapping/heldout13.tsv): how many times every node's
// root path steps to a child that is not its parent's first (eldest) child
// (the "cadet" count of a succession tree under primogeniture, or the number
// of right turns of the path in the tree's first-child / next-sibling binary
// form), with a self-launching kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; the child in slot s writes its parent's count
// (written before the launch, so visible to the child grid) plus one unless
// s is the parent's first slot, and a child with children of its own
// launches the same kernel on them. The child's value depends on its SLOT
// among its siblings (compare examples/trees/dewey_labels.cu). Integer,
// exact (each node is written once). Written for issue 22's thirteenth
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 cadet_steps.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef CS_BLOCK
#define CS_BLOCK 64
#endif

__global__ void cadet_steps(const unsigned *first_child, const unsigned *kids, unsigned *steps, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    steps[c] = steps[node] + (s != first_child[node] ? 1u : 0u);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) cadet_steps<<<(n + CS_BLOCK - 1) / CS_BLOCK, CS_BLOCK>>>(first_child, kids, steps, c);
  }
}

static std::vector<uint32_t> cadet_steps_ref(const tree::csr &t) {
  std::vector<uint32_t> c(t.nodes, 0u);
  for (uint32_t v = 0; v < t.nodes; ++v)  // parents come first
    for (uint32_t s = t.child_offsets[v]; s < t.child_offsets[v + 1]; ++s)
      c[t.children[s]] = c[v] + (s != t.child_offsets[v] ? 1u : 0u);
  return c;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *steps, unsigned root_degree, unsigned) {
  if (root_degree > 0) cadet_steps<<<(root_degree + CS_BLOCK - 1) / CS_BLOCK, CS_BLOCK>>>(first_child, kids, steps, 0u);
}

int main(int argc, char **argv) { return tree::run_main("cadet_steps", argc, argv, 0u, cadet_steps_ref, run); }
