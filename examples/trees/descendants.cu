// Tree descendants with dynamic parallelism, the recursive form Nestor's
// rec-hier and rec-flat rewrites take as input (irregular-loop-and-recursion-
// templates.md II-C, Figure 3(d), in CDP2 form): one child grid per node covers
// its children, one thread per child; a child with children of its own
// launches the same kernel on it. CDP2 has no device-side
// cudaDeviceSynchronize, so the post-order combination (a node's count is 1
// plus its children's counts) is a kernel launched into the tail-launch
// stream: it starts after this grid and every grid launched below it.
//
// desc[v] = number of nodes in v's subtree, v included (initialised to 1).
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 descendants.cu -lcudadevrt
#include "tree_driver.cuh"

#define TREE_BLOCK 128

__global__ void add_children(const unsigned *child_offsets, const unsigned *children, unsigned *desc,
                             unsigned node) {
  for (unsigned s = child_offsets[node]; s < child_offsets[node + 1]; ++s) {
    unsigned child = children[s];
    desc[node] += desc[child];
  }
}

__global__ void descendants(const unsigned *child_offsets, const unsigned *children, unsigned *desc,
                            unsigned node) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    add_children<<<1, 1, 0, cudaStreamTailLaunch>>>(child_offsets, children, desc, node);
  unsigned slot = child_offsets[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (slot < child_offsets[node + 1]) {
    unsigned child = children[slot];
    unsigned grandchildren = child_offsets[child + 1] - child_offsets[child];
    if (grandchildren > 0)
      descendants<<<(grandchildren - 1) / TREE_BLOCK + 1, TREE_BLOCK>>>(child_offsets, children, desc, child);
  }
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    descendants<<<(root_degree - 1) / TREE_BLOCK + 1, TREE_BLOCK>>>(child_offsets, children, desc, 0u);
}

int main(int argc, char **argv) { return tree::run_main("descendants", argc, argv, 1u, tree::descendants_ref, run); }
