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

// One child's pre-order statements (descendants, lines 26-36).
__device__ __forceinline__ void descendants_nestor_pre(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned node, unsigned int child) {
  unsigned grandchildren = child_offsets[child + 1] - child_offsets[child];
}

// Whether a child recurses: depends on the tree only, so a block may ask it of every
// grandchild before any of their pre-order statements ran.
__device__ __forceinline__ bool descendants_nestor_recurses(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned node, unsigned int child) {
  unsigned grandchildren = child_offsets[child + 1] - child_offsets[child];
  return grandchildren > 0;
}

// The post-order kernel add_children as a function: replayed for a node once its subtree is done.
__device__ __forceinline__ void add_children_nestor_body(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned node) {
  for (unsigned s = child_offsets[node]; s < child_offsets[node + 1]; ++s) {
    unsigned child = children[s];
    desc[node] += desc[child];
  }
}

__device__ __forceinline__ void descendants_nestor_post(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned node) { add_children_nestor_body(child_offsets, children, desc, node); }

// descendants after rec-hier ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C, Figure 3(e)): one block per
// child of node, threads over the child's children; the kernel is launched again, by one thread,
// only for a child with grandchildren, and that launch's tail launch combines the child.
__global__ void descendants(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned node) {
  __shared__ int nestor_recurse, nestor_deeper;
  // After this grid and every grid below it (CDP2 tail launch), as in the original.
  if (blockIdx.x == 0 && threadIdx.x == 0)
    add_children<<<1, 1, 0, cudaStreamTailLaunch>>>(child_offsets, children, desc, node);
  for (unsigned int nestor_slot = child_offsets[node] + blockIdx.x; nestor_slot < child_offsets[node + 1];
       nestor_slot += gridDim.x) {
    const unsigned int child = children[nestor_slot];
    if (threadIdx.x == 0) {
      descendants_nestor_pre(child_offsets, children, desc, node, child);
      nestor_recurse = descendants_nestor_recurses(child_offsets, children, desc, node, child);
      nestor_deeper = 0;
    }
    __syncthreads();
    if (nestor_recurse) {
      // The child's children (thread-mapped): does any of them recurse?
      for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
        if (descendants_nestor_recurses(child_offsets, children, desc, child, children[nestor_g])) nestor_deeper = 1;
      __syncthreads();
      if (nestor_deeper) {
        // Recursion on the child, one block per grandchild, launched at block level.
        if (threadIdx.x == 0)
          descendants<<<child_offsets[child + 1] - child_offsets[child], blockDim.x>>>(child_offsets, children, desc, child);
      } else {
        // Every grandchild is a leaf of the recursion: this block does them.
        for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
          descendants_nestor_pre(child_offsets, children, desc, child, children[nestor_g]);
        __syncthreads();
        // The child's subtree is done: its post-order combination, in this block.
        if (threadIdx.x == 0) descendants_nestor_post(child_offsets, children, desc, child);
      }
    }
    __syncthreads(); // the flags are reused by the next child
  }
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    descendants<<<(root_degree - 1) / TREE_BLOCK + 1, TREE_BLOCK>>>(child_offsets, children, desc, 0u);
}

int main(int argc, char **argv) { return tree::run_main("descendants", argc, argv, 1u, tree::descendants_ref, run); }
