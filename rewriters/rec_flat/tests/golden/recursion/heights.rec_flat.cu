// Tree heights with dynamic parallelism (irregular-loop-and-recursion-
// templates.md III-C): a leaf has height 1, any other node 1 + the largest
// height of its children. Same recursion as descendants.cu: one child grid
// per node over its children, the post-order combination in a tail launch
// (CDP2). Input of the rec-hier and rec-flat rewrites.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 heights.cu -lcudadevrt
#include "tree_driver.cuh"
#include <nestor/rec.cuh>

#define TREE_BLOCK 64

__global__ void max_of_children(const unsigned *child_offsets, const unsigned *children, unsigned *height,
                                unsigned node) {
  for (unsigned s = child_offsets[node]; s < child_offsets[node + 1]; ++s) {
    unsigned child = children[s];
    height[node] = max(height[node], height[child] + 1);
  }
}

// One child: its pre-order statements, then whether it recurses (heights, lines 20-29).
__device__ __forceinline__ bool heights_nestor_visit(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned node, unsigned int child) {
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

// One level of heights's recursion without dynamic parallelism (rec-flat,
// "Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C): one thread per (frontier node, child) pair; a child that recursed
// in the original joins the next frontier.
__global__ void heights_nestor_level(const unsigned *child_offsets, const unsigned *children, unsigned *height, const unsigned int *nestor_frontier, const unsigned *nestor_first, unsigned nestor_nodes,
    unsigned nestor_pairs, unsigned int *nestor_next, unsigned *nestor_next_count) {
  for (unsigned nestor_p = blockIdx.x * blockDim.x + threadIdx.x; nestor_p < nestor_pairs;
       nestor_p += gridDim.x * blockDim.x) {
    const unsigned nestor_f = nestor::rec::owner(nestor_first, nestor_nodes, nestor_p);
    const unsigned int node = nestor_frontier[nestor_f];
    const unsigned int child = children[child_offsets[node] + (nestor_p - nestor_first[nestor_f])];
    if (heights_nestor_visit(child_offsets, children, height, node, child))
      nestor::rec::push(nestor_next, nestor_next_count, static_cast<unsigned int>(child));
  }
}

// The post-order combination of one level's nodes, after every deeper level.
__global__ void heights_nestor_post_level(const unsigned *child_offsets, const unsigned *children, unsigned *height, const unsigned int *nestor_frontier, unsigned nestor_nodes) {
  for (unsigned nestor_i = blockIdx.x * blockDim.x + threadIdx.x; nestor_i < nestor_nodes;
       nestor_i += gridDim.x * blockDim.x) {
    const unsigned int node = nestor_frontier[nestor_i];
    heights_nestor_post(child_offsets, children, height, node);
  }
}

// heights's recursion from node, level by level, on the host's default stream (replaces its
// launches; no CDP needed).
static void heights_nestor_flat(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned node) {
  nestor::rec::level_worklist<unsigned int> nestor_wl(node);
  while (nestor_wl.expand(child_offsets)) {
    heights_nestor_level<<<nestor_wl.blocks(), nestor_wl.block_size>>>(child_offsets, children, height, nestor_wl.frontier(), nestor_wl.first(), nestor_wl.nodes(), nestor_wl.pairs(),
        nestor_wl.next(), nestor_wl.next_count());
    nestor_wl.advance();
  }
  for (size_t nestor_l = nestor_wl.levels(); nestor_l-- > 0;)
    heights_nestor_post_level<<<nestor_wl.blocks_for(nestor_wl.level_size(nestor_l)), nestor_wl.block_size>>>(
        child_offsets, children, height, nestor_wl.level_nodes(nestor_l), nestor_wl.level_size(nestor_l));
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *height, unsigned root_degree, unsigned) {
  if (root_degree > 0) heights_nestor_flat(child_offsets, children, height, 0u);
}

int main(int argc, char **argv) { return tree::run_main("heights", argc, argv, 1u, tree::heights_ref, run); }
