// Held-out case (bench/mapping/heldout19.tsv): every node's weighted depth
// (the root distance when each edge costs 1 plus the low two bits of the
// child's id: the latency a multicast or a content-distribution tree's
// relays add hop by hop, each relay's cost read off its id), with a
// self-launching kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child writes its parent's value (written
// before the launch, so visible to the child grid) plus its OWN hop cost,
// and a child with children of its own launches the same kernel on them. A
// sum along root paths; integer, exact (each node is written once). Written
// for issue 22's nineteenth held-out set, before any tuning on it; no weight
// of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 depth_weight.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef DW_BLOCK
#define DW_BLOCK 64
#endif

__global__ void relay_latency(const unsigned *first_child, const unsigned *kids, unsigned *latency, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    latency[c] = latency[node] + 1u + (c & 3u);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) relay_latency<<<(n + DW_BLOCK - 1) / DW_BLOCK, DW_BLOCK>>>(first_child, kids, latency, c);
  }
}

static std::vector<uint32_t> relay_latency_ref(const tree::csr &t) {
  std::vector<uint32_t> d(t.nodes, 0u);  // the root: 0
  for (uint32_t p = 0; p < t.nodes; ++p)  // parents come first
    for (uint32_t s = t.child_offsets[p]; s < t.child_offsets[p + 1]; ++s)
      d[t.children[s]] = d[p] + 1u + (t.children[s] & 3u);
  return d;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *latency, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    relay_latency<<<(root_degree + DW_BLOCK - 1) / DW_BLOCK, DW_BLOCK>>>(first_child, kids, latency, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("depth_weight", argc, argv, 0u, relay_latency_ref, run);
}
