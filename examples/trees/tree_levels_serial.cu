// Recursive BFS over a tree (tree_levels.cu) written as one thread looping
// over a node's children: every grid is <<<1, 1>>>, and the thread launches
// the kernel again on each child that has children. The children are visited
// in turn, but nothing is carried from one to the next, so rec-hier and
// rec-flat may spread them over threads. Input of both rewrites.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 tree_levels_serial.cu -lcudadevrt
#include "tree_driver.cuh"

__global__ void levels_serial(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned node) {
  for (unsigned s = child_offsets[node]; s < child_offsets[node + 1]; ++s) {
    unsigned child = children[s];
    level[child] = level[node] + 1;
    if (child_offsets[child + 1] > child_offsets[child])
      levels_serial<<<1, 1>>>(child_offsets, children, level, child);
  }
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned, unsigned) {
  levels_serial<<<1, 1>>>(child_offsets, children, level, 0u);
}

int main(int argc, char **argv) { return tree::run_main("tree_levels_serial", argc, argv, 0u, tree::levels_ref, run); }
