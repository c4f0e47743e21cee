// Recursive BFS over a tree stored as CSR arrays (irregular-loop-and-
// recursion-templates.md III-C, "recursive BFS", on a tree: every node is
// reached once): a node's level is its parent's plus one, set before the
// recursion descends (pre-order), so no post-order combination is needed.
// One child grid per node over its children, one thread per child.
// Input of the rec-hier and rec-flat rewrites.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 tree_levels.cu -lcudadevrt
#include "tree_driver.cuh"
#include <nestor/rec.cuh>

#define TREE_BLOCK 256

// One child: its pre-order statements, then whether it recurses (tree_levels, lines 14-23).
__device__ __forceinline__ bool tree_levels_nestor_visit(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned node, unsigned int child) {
  level[child] = level[node] + 1;
  unsigned fanout = child_offsets[child + 1] - child_offsets[child];
  return fanout != 0;
}

// One level of tree_levels's recursion without dynamic parallelism (rec-flat,
// "Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C): one thread per (frontier node, child) pair; a child that recursed
// in the original joins the next frontier.
__global__ void tree_levels_nestor_level(const unsigned *child_offsets, const unsigned *children, unsigned *level, const unsigned int *nestor_frontier, const unsigned *nestor_first, unsigned nestor_nodes,
    unsigned nestor_pairs, unsigned int *nestor_next, unsigned *nestor_next_count) {
  for (unsigned nestor_p = blockIdx.x * blockDim.x + threadIdx.x; nestor_p < nestor_pairs;
       nestor_p += gridDim.x * blockDim.x) {
    const unsigned nestor_f = nestor::rec::owner(nestor_first, nestor_nodes, nestor_p);
    const unsigned int node = nestor_frontier[nestor_f];
    const unsigned int child = children[child_offsets[node] + (nestor_p - nestor_first[nestor_f])];
    if (tree_levels_nestor_visit(child_offsets, children, level, node, child))
      nestor::rec::push(nestor_next, nestor_next_count, static_cast<unsigned int>(child));
  }
}

// tree_levels's recursion from node, level by level, on the host's default stream (replaces its
// launches; no CDP needed).
static void tree_levels_nestor_flat(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned node) {
  nestor::rec::level_worklist<unsigned int> nestor_wl(node);
  while (nestor_wl.expand(child_offsets)) {
    tree_levels_nestor_level<<<nestor_wl.blocks(), nestor_wl.block_size>>>(child_offsets, children, level, nestor_wl.frontier(), nestor_wl.first(), nestor_wl.nodes(), nestor_wl.pairs(),
        nestor_wl.next(), nestor_wl.next_count());
    nestor_wl.advance();
  }
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *level, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    tree_levels_nestor_flat(child_offsets, children, level, 0u);
}

int main(int argc, char **argv) { return tree::run_main("tree_levels", argc, argv, 0u, tree::levels_ref, run); }
