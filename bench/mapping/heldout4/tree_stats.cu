// Held-out case (bench/mapping/heldout4.tsv): a reduction of a whole tree
// into a few statistics with a self-launching kernel (the recursion
// templates' input form, irregular-loop-and-recursion-templates.md II-C,
// CDP2): one child grid per node over its children; each child adds its
// weight to the tree's total, a leaf adds one to the leaf count and its
// weight to the leaves' weight, every child raises the largest fan-out to
// its own (atomicMax), and an inner node launches the same kernel on its
// children (as a scene-graph, file-system or B-tree checker summarises a
// tree). The result holds the total
// weight at index 0, the number of leaves at 1, the largest fan-out below the
// root at 2 and the leaves' weight at 3 (0 elsewhere); integer atomics, exact.
// Written for issue 22's fourth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 tree_stats.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef STATS_BLOCK
#define STATS_BLOCK 64
#endif

// A node's own weight, 1..8, from its id.
__host__ __device__ inline unsigned item_weight(unsigned v) { return ((v * 2246822519u) >> 29) + 1u; }

__global__ void tree_stats(const unsigned *first_child, const unsigned *kids, unsigned *acc, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    unsigned w = item_weight(c);
    atomicAdd(&acc[0], w);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n == 0) {
      atomicAdd(&acc[1], 1u);
      atomicAdd(&acc[3], w);
    }
    atomicMax(&acc[2], n);
    if (n > 0) tree_stats<<<(n + STATS_BLOCK - 1) / STATS_BLOCK, STATS_BLOCK>>>(first_child, kids, acc, c);
  }
}

static std::vector<uint32_t> tree_stats_ref(const tree::csr &t) {
  std::vector<uint32_t> acc(std::max<uint32_t>(t.nodes, 4), 0);
  for (uint32_t v = 1; v < t.nodes; ++v) {
    acc[0] += item_weight(v);
    if (t.degree(v) == 0) acc[1] += 1, acc[3] += item_weight(v);
    else acc[2] = std::max(acc[2], t.degree(v));
  }
  acc.resize(t.nodes);
  return acc;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *acc, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    tree_stats<<<(root_degree + STATS_BLOCK - 1) / STATS_BLOCK, STATS_BLOCK>>>(first_child, kids, acc, 0u);
}

int main(int argc, char **argv) { return tree::run_main("tree_stats", argc, argv, 0u, tree_stats_ref, run); }
