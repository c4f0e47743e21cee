// Held-out case (bench/mapping/heldout3.tsv): a depth-limited census of a
// tree with a self-launching kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child counts itself at its level with an
// atomic add, and a child with children of its own launches the same kernel
// on them, one level deeper, until the depth limit. The result holds, at
// index l, the number of nodes at depth l for 1 <= l <= CENSUS_DEPTH (0
// elsewhere). Written for issue 22's third held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 depth_census.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef CENSUS_BLOCK
#define CENSUS_BLOCK 32
#endif
#ifndef CENSUS_DEPTH
#define CENSUS_DEPTH 6
#endif

__global__ void level_census(const unsigned *first_child, const unsigned *kids, unsigned *count, unsigned node,
                             unsigned level) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    atomicAdd(&count[level + 1], 1u);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0 && level + 1 < CENSUS_DEPTH)
      level_census<<<(n + CENSUS_BLOCK - 1) / CENSUS_BLOCK, CENSUS_BLOCK>>>(first_child, kids, count, c, level + 1);
  }
}

static std::vector<uint32_t> census_ref(const tree::csr &t) {
  std::vector<uint32_t> level = tree::levels_ref(t), count(t.nodes, 0);
  for (uint32_t v = 1; v < t.nodes; ++v)
    if (level[v] <= CENSUS_DEPTH) ++count[level[v]];
  return count;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *count, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    level_census<<<(root_degree + CENSUS_BLOCK - 1) / CENSUS_BLOCK, CENSUS_BLOCK>>>(first_child, kids, count, 0u, 0u);
}

int main(int argc, char **argv) { return tree::run_main("depth_census", argc, argv, 0u, census_ref, run); }
