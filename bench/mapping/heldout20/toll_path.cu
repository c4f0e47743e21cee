// Held-out case (bench/mapping/heldout20.tsv): every node's toll from the
// root (each hop costs 1, or 3 when the node entered is a toll gate: every
// node whose id is a multiple of 7), the fare a road or a pipeline network
// laid out as a distribution tree charges to reach each outlet, with a
// self-launching kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child writes its parent's value (written
// before the launch, so visible to the child grid) plus its OWN hop's toll,
// and a child with children of its own launches the same kernel on them. A
// sum along root paths; integer, exact (each node is written once). Written
// for issue 22's twentieth held-out set, before any tuning on it; no weight
// of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 toll_path.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef TP_BLOCK
#define TP_BLOCK 64
#endif

__global__ void toll_road_cost(const unsigned *first_child, const unsigned *kids, unsigned *toll, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    toll[c] = toll[node] + (c % 7u == 0u ? 3u : 1u);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) toll_road_cost<<<(n + TP_BLOCK - 1) / TP_BLOCK, TP_BLOCK>>>(first_child, kids, toll, c);
  }
}

static std::vector<uint32_t> toll_road_cost_ref(const tree::csr &t) {
  std::vector<uint32_t> d(t.nodes, 0u);  // the root: 0
  for (uint32_t p = 0; p < t.nodes; ++p)  // parents come first
    for (uint32_t s = t.child_offsets[p]; s < t.child_offsets[p + 1]; ++s)
      d[t.children[s]] = d[p] + (t.children[s] % 7u == 0u ? 3u : 1u);
  return d;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *toll, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    toll_road_cost<<<(root_degree + TP_BLOCK - 1) / TP_BLOCK, TP_BLOCK>>>(first_child, kids, toll, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("toll_path", argc, argv, 0u, toll_road_cost_ref, run);
}
