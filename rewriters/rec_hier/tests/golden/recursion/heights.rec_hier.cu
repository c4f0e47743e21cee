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

// One child's pre-order statements (heights, lines 20-29).
__device__ __forceinline__ void heights_nestor_pre(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned node, unsigned int child) {
}

// Whether a child recurses: depends on the tree only, so a block may ask it of every
// grandchild before any of their pre-order statements ran.
__device__ __forceinline__ bool heights_nestor_recurses(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned node, unsigned int child) {
  return child_offsets[child + 1] > child_offsets[child];
}

// The post-order kernel max_of_children as a function: replayed for a node once its subtree is done.
__device__ __forceinline__ void max_of_children_nestor_body(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned node) {
  for (unsigned s = child_offsets[node]; s < child_offsets[node + 1]; ++s) {
    unsigned child = children[s];
    height[node] = max(height[node], height[child] + 1);
  }
}

__device__ __forceinline__ void heights_nestor_post(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned node) { max_of_children_nestor_body(child_offsets, children, height, node); }

// heights after rec-hier ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C, Figure 3(e)): one block per
// child of node, threads over the child's children; the kernel is launched again, by one thread,
// only for a child with grandchildren, and that launch's tail launch combines the child.
__global__ void heights(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned node) {
  __shared__ int nestor_recurse, nestor_deeper;
  // After this grid and every grid below it (CDP2 tail launch), as in the original.
  if (blockIdx.x == 0 && threadIdx.x == 0)
    max_of_children<<<1, 1, 0, cudaStreamTailLaunch>>>(child_offsets, children, height, node);
  for (unsigned int nestor_slot = child_offsets[node] + blockIdx.x; nestor_slot < child_offsets[node + 1];
       nestor_slot += gridDim.x) {
    const unsigned int child = children[nestor_slot];
    if (threadIdx.x == 0) {
      heights_nestor_pre(child_offsets, children, height, node, child);
      nestor_recurse = heights_nestor_recurses(child_offsets, children, height, node, child);
      nestor_deeper = 0;
    }
    __syncthreads();
    if (nestor_recurse) {
      // The child's children (thread-mapped): does any of them recurse?
      for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
        if (heights_nestor_recurses(child_offsets, children, height, child, children[nestor_g])) nestor_deeper = 1;
      __syncthreads();
      if (nestor_deeper) {
        // Recursion on the child, one block per grandchild, launched at block level.
        if (threadIdx.x == 0)
          heights<<<child_offsets[child + 1] - child_offsets[child], blockDim.x>>>(child_offsets, children, height, child);
      } else {
        // Every grandchild is a leaf of the recursion: this block does them.
        for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
          heights_nestor_pre(child_offsets, children, height, child, children[nestor_g]);
        __syncthreads();
        // The child's subtree is done: its post-order combination, in this block.
        if (threadIdx.x == 0) heights_nestor_post(child_offsets, children, height, child);
      }
    }
    __syncthreads(); // the flags are reused by the next child
  }
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned root_degree, unsigned) {
  if (root_degree > 0) heights<<<(root_degree - 1) / TREE_BLOCK + 1, TREE_BLOCK>>>(child_offsets, children, height, 0u);
}

int main(int argc, char **argv) { return tree::run_main("heights", argc, argv, 1u, tree::heights_ref, run); }
