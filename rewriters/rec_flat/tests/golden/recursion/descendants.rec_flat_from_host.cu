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
#include <nestor/rec.cuh>

#define TREE_BLOCK 128

__global__ void add_children(const unsigned *child_offsets, const unsigned *children, unsigned *desc,
                             unsigned node) {
  for (unsigned s = child_offsets[node]; s < child_offsets[node + 1]; ++s) {
    unsigned child = children[s];
    desc[node] += desc[child];
  }
}

// One child: its pre-order statements, then whether it recurses (descendants, lines 26-36).
__device__ __forceinline__ bool descendants_nestor_visit(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned node, unsigned int child) {
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

// One level of descendants's recursion without dynamic parallelism (rec-flat,
// "Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C): one thread per (frontier node, child) pair; a child that recursed
// in the original joins the next frontier.
__global__ void descendants_nestor_level(const unsigned *child_offsets, const unsigned *children, unsigned *desc, const unsigned int *nestor_frontier, const unsigned *nestor_first, unsigned nestor_nodes,
    unsigned nestor_pairs, unsigned int *nestor_next, unsigned *nestor_next_count) {
  for (unsigned nestor_p = blockIdx.x * blockDim.x + threadIdx.x; nestor_p < nestor_pairs;
       nestor_p += gridDim.x * blockDim.x) {
    const unsigned nestor_f = nestor::rec::owner(nestor_first, nestor_nodes, nestor_p);
    const unsigned int node = nestor_frontier[nestor_f];
    const unsigned int child = children[child_offsets[node] + (nestor_p - nestor_first[nestor_f])];
    if (descendants_nestor_visit(child_offsets, children, desc, node, child))
      nestor::rec::push(nestor_next, nestor_next_count, static_cast<unsigned int>(child));
  }
}

// The post-order combination of one level's nodes, after every deeper level.
__global__ void descendants_nestor_post_level(const unsigned *child_offsets, const unsigned *children, unsigned *desc, const unsigned int *nestor_frontier, unsigned nestor_nodes) {
  for (unsigned nestor_i = blockIdx.x * blockDim.x + threadIdx.x; nestor_i < nestor_nodes;
       nestor_i += gridDim.x * blockDim.x) {
    const unsigned int node = nestor_frontier[nestor_i];
    descendants_nestor_post(child_offsets, children, desc, node);
  }
}

// descendants's recursion from node, level by level, on the host's default stream (replaces its
// launches; no CDP needed).
static void descendants_nestor_flat(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned node) {
  nestor::rec::level_worklist<unsigned int> nestor_wl(node);
  while (nestor_wl.expand(child_offsets)) {
    descendants_nestor_level<<<nestor_wl.blocks(), nestor_wl.block_size>>>(child_offsets, children, desc, nestor_wl.frontier(), nestor_wl.first(), nestor_wl.nodes(), nestor_wl.pairs(),
        nestor_wl.next(), nestor_wl.next_count());
    nestor_wl.advance();
  }
  for (size_t nestor_l = nestor_wl.levels(); nestor_l-- > 0;)
    descendants_nestor_post_level<<<nestor_wl.blocks_for(nestor_wl.level_size(nestor_l)), nestor_wl.block_size>>>(
        child_offsets, children, desc, nestor_wl.level_nodes(nestor_l), nestor_wl.level_size(nestor_l));
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    descendants_nestor_flat(child_offsets, children, desc, 0u);
}

int main(int argc, char **argv) { return tree::run_main("descendants", argc, argv, 1u, tree::descendants_ref, run); }
