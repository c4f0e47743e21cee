// Held-out case (bench/mapping/heldout15.tsv): the hop budget left at every
// node of a flooding or gossip overlay tree (a message leaves the root with
// a time-to-live of 64 units and every link it crosses costs 1 to 16 units,
// fixed by a hash of the link's LOWER end, the child; a node whose budget
// runs out keeps 0 and the message goes no further), with a self-launching
// kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child writes its parent's budget (written
// before the launch, so visible to the child grid) less its own link's cost,
// saturating at 0, and a child with children of its own launches the same
// kernel on them. A saturating difference along root paths; integer, exact
// (each node is written once). Written for issue 22's fifteenth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 ttl_budget.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef TB_BLOCK
#define TB_BLOCK 64
#endif

__host__ __device__ __forceinline__ unsigned hop_cost(unsigned c) {
  unsigned h = c * 0x9E3779B9u + 1591u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return 1u + (h & 15u);
}

__global__ void remaining_ttl(const unsigned *first_child, const unsigned *kids, unsigned *ttl, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    ttl[c] = ttl[node] > hop_cost(c) ? ttl[node] - hop_cost(c) : 0u;
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) remaining_ttl<<<(n + TB_BLOCK - 1) / TB_BLOCK, TB_BLOCK>>>(first_child, kids, ttl, c);
  }
}

static std::vector<uint32_t> remaining_ttl_ref(const tree::csr &t) {
  std::vector<uint32_t> b(t.nodes, 64u);  // the root: 64
  for (uint32_t v = 1; v < t.nodes; ++v) {  // parents come first
    const uint32_t p = b[t.parent[v]];
    b[v] = p > hop_cost(v) ? p - hop_cost(v) : 0u;
  }
  return b;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *ttl, unsigned root_degree, unsigned) {
  if (root_degree > 0) remaining_ttl<<<(root_degree + TB_BLOCK - 1) / TB_BLOCK, TB_BLOCK>>>(first_child, kids, ttl, 0u);
}

int main(int argc, char **argv) { return tree::run_main("ttl_budget", argc, argv, 64u, remaining_ttl_ref, run); }
