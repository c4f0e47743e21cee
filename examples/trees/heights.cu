// Tree heights with dynamic parallelism (irregular-loop-and-recursion-
// templates.md III-C): a leaf has height 1, any other node 1 + the largest
// height of its children. Same recursion as descendants.cu: one child grid
// per node over its children, the post-order combination in a tail launch
// (CDP2). Input of the rec-hier and rec-flat rewrites.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 heights.cu -lcudadevrt
#include "tree_driver.cuh"

#define TREE_BLOCK 64

__global__ void max_of_children(const unsigned *child_offsets, const unsigned *children, unsigned *height,
                                unsigned node) {
  for (unsigned s = child_offsets[node]; s < child_offsets[node + 1]; ++s) {
    unsigned child = children[s];
    height[node] = max(height[node], height[child] + 1);
  }
}

__global__ void heights(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned node) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    max_of_children<<<1, 1, 0, cudaStreamTailLaunch>>>(child_offsets, children, height, node);
  unsigned slot = blockDim.x * blockIdx.x + threadIdx.x + child_offsets[node];
  if (slot >= child_offsets[node + 1]) return;
  unsigned child = children[slot];
  if (child_offsets[child + 1] > child_offsets[child])
    heights<<<(child_offsets[child + 1] - child_offsets[child] - 1) / TREE_BLOCK + 1, TREE_BLOCK>>>(
        child_offsets, children, height, child);
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned root_degree, unsigned) {
  if (root_degree > 0) heights<<<(root_degree - 1) / TREE_BLOCK + 1, TREE_BLOCK>>>(child_offsets, children, height, 0u);
}

int main(int argc, char **argv) { return tree::run_main("heights", argc, argv, 1u, tree::heights_ref, run); }
