// Recursive BFS over a tree stored as CSR arrays (irregular-loop-and-
// recursion-templates.md III-C, "recursive BFS", on a tree: every node is
// reached once): a node's level is its parent's plus one, set before the
// recursion descends (pre-order), so no post-order combination is needed.
// One child grid per node over its children, one thread per child.
// Input of the rec-hier and rec-flat rewrites.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 tree_levels.cu -lcudadevrt
#include "tree_driver.cuh"

#define TREE_BLOCK 256

__global__ void tree_levels(const unsigned *child_offsets, const unsigned *children, unsigned *level,
                            unsigned node) {
  unsigned slot = child_offsets[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (slot < child_offsets[node + 1]) {
    unsigned child = children[slot];
    level[child] = level[node] + 1;
    unsigned fanout = child_offsets[child + 1] - child_offsets[child];
    if (fanout != 0)
      tree_levels<<<(fanout + TREE_BLOCK - 1) / TREE_BLOCK, TREE_BLOCK>>>(child_offsets, children, level, child);
  }
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    tree_levels<<<(root_degree + TREE_BLOCK - 1) / TREE_BLOCK, TREE_BLOCK>>>(child_offsets, children, level, 0u);
}

int main(int argc, char **argv) { return tree::run_main("tree_levels", argc, argv, 0u, tree::levels_ref, run); }
