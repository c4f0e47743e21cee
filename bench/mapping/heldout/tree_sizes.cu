// Held-out case (bench/mapping/heldout.tsv): a recursion-shaped kernel in the
// form of the recursion templates' input (irregular-loop-and-recursion-
// templates.md II-C, CDP2): one child grid per node over its children, a
// child with children of its own launches the same kernel on it, and a tail
// launch adds the children's counts into the node's (post-order). The
// recursion templates refuse an `else` on the recursion's `if`, so every node
// starts at 1 and the count is the subtree's size (v included).
// Held-out: no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 tree_sizes.cu -lcudadevrt
#include "tree_driver.cuh"

#define SIZE_BLOCK 32

__global__ void add_child_sizes(const unsigned *first_child, const unsigned *kids, unsigned *size, unsigned node) {
  for (unsigned s = first_child[node]; s < first_child[node + 1]; ++s) {
    unsigned c = kids[s];
    size[node] += size[c];
  }
}

__global__ void subtree_size(const unsigned *first_child, const unsigned *kids, unsigned *size, unsigned node) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    add_child_sizes<<<1, 1, 0, cudaStreamTailLaunch>>>(first_child, kids, size, node);
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0)
      subtree_size<<<(n - 1) / SIZE_BLOCK + 1, SIZE_BLOCK>>>(first_child, kids, size, c);
  }
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *size, unsigned root_degree, unsigned nodes) {
  (void)nodes;
  if (root_degree > 0) subtree_size<<<(root_degree - 1) / SIZE_BLOCK + 1, SIZE_BLOCK>>>(first_child, kids, size, 0u);
}

int main(int argc, char **argv) { return tree::run_main("tree_sizes", argc, argv, 1u, tree::descendants_ref, run); }
