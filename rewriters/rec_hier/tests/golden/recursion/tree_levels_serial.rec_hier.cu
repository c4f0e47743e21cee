// Recursive BFS over a tree (tree_levels.cu) written as one thread looping
// over a node's children: every grid is <<<1, 1>>>, and the thread launches
// the kernel again on each child that has children. The children are visited
// in turn, but nothing is carried from one to the next, so rec-hier and
// rec-flat may spread them over threads. Input of both rewrites.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 tree_levels_serial.cu -lcudadevrt
#include "tree_driver.cuh"

// One child's pre-order statements (levels_serial, lines 10-17).
__device__ __forceinline__ void levels_serial_nestor_pre(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned node, unsigned int child) {
  level[child] = level[node] + 1;
}

// Whether a child recurses: depends on the tree only, so a block may ask it of every
// grandchild before any of their pre-order statements ran.
__device__ __forceinline__ bool levels_serial_nestor_recurses(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned node, unsigned int child) {
  return child_offsets[child + 1] > child_offsets[child];
}

// levels_serial after rec-hier ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C, Figure 3(e)): one block per
// child of node, threads over the child's children; the kernel is launched again, by one thread,
// only for a child with grandchildren.
__global__ void levels_serial(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned node) {
  __shared__ int nestor_recurse, nestor_deeper;
  for (unsigned int nestor_slot = child_offsets[node] + blockIdx.x; nestor_slot < child_offsets[node + 1];
       nestor_slot += gridDim.x) {
    const unsigned int child = children[nestor_slot];
    if (threadIdx.x == 0) {
      levels_serial_nestor_pre(child_offsets, children, level, node, child);
      nestor_recurse = levels_serial_nestor_recurses(child_offsets, children, level, node, child);
      nestor_deeper = 0;
    }
    __syncthreads();
    if (nestor_recurse) {
      // The child's children (thread-mapped): does any of them recurse?
      for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
        if (levels_serial_nestor_recurses(child_offsets, children, level, child, children[nestor_g])) nestor_deeper = 1;
      __syncthreads();
      if (nestor_deeper) {
        // Recursion on the child, one block per grandchild, launched at block level.
        if (threadIdx.x == 0)
          levels_serial<<<child_offsets[child + 1] - child_offsets[child], 128>>>(child_offsets, children, level, child);
      } else {
        // Every grandchild is a leaf of the recursion: this block does them.
        for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
          levels_serial_nestor_pre(child_offsets, children, level, child, children[nestor_g]);
      }
    }
    __syncthreads(); // the flags are reused by the next child
  }
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned, unsigned) {
  levels_serial<<<1, 1>>>(child_offsets, children, level, 0u);
}

int main(int argc, char **argv) { return tree::run_main("tree_levels_serial", argc, argv, 0u, tree::levels_ref, run); }
