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

// One child's pre-order statements (tree_levels, lines 14-23).
__device__ __forceinline__ void tree_levels_nestor_pre(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned node, unsigned int child) {
  level[child] = level[node] + 1;
  unsigned fanout = child_offsets[child + 1] - child_offsets[child];
}

// Whether a child recurses: depends on the tree only, so a block may ask it of every
// grandchild before any of their pre-order statements ran.
__device__ __forceinline__ bool tree_levels_nestor_recurses(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned node, unsigned int child) {
  unsigned fanout = child_offsets[child + 1] - child_offsets[child];
  return fanout != 0;
}

// tree_levels after rec-hier ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C, Figure 3(e)): one block per
// child of node, threads over the child's children; the kernel is launched again, by one thread,
// only for a child with grandchildren.
__global__ void tree_levels(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned node) {
  __shared__ int nestor_recurse, nestor_deeper;
  for (unsigned int nestor_slot = child_offsets[node] + blockIdx.x; nestor_slot < child_offsets[node + 1];
       nestor_slot += gridDim.x) {
    const unsigned int child = children[nestor_slot];
    if (threadIdx.x == 0) {
      tree_levels_nestor_pre(child_offsets, children, level, node, child);
      nestor_recurse = tree_levels_nestor_recurses(child_offsets, children, level, node, child);
      nestor_deeper = 0;
    }
    __syncthreads();
    if (nestor_recurse) {
      // The child's children (thread-mapped): does any of them recurse?
      for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
        if (tree_levels_nestor_recurses(child_offsets, children, level, child, children[nestor_g])) nestor_deeper = 1;
      __syncthreads();
      if (nestor_deeper) {
        // Recursion on the child, one block per grandchild, launched at block level.
        if (threadIdx.x == 0)
          tree_levels<<<child_offsets[child + 1] - child_offsets[child], blockDim.x>>>(child_offsets, children, level, child);
      } else {
        // Every grandchild is a leaf of the recursion: this block does them.
        for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
          tree_levels_nestor_pre(child_offsets, children, level, child, children[nestor_g]);
      }
    }
    __syncthreads(); // the flags are reused by the next child
  }
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    tree_levels<<<(root_degree + TREE_BLOCK - 1) / TREE_BLOCK, TREE_BLOCK>>>(child_offsets, children, level, 0u);
}

int main(int argc, char **argv) { return tree::run_main("tree_levels", argc, argv, 0u, tree::levels_ref, run); }
