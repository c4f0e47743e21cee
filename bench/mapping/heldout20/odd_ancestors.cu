// Held-out case (bench/mapping/heldout20.tsv): how many odd-numbered nodes
// lie on every node's root path, itself included (a count along the path
// that a two-colour partitioned tree, such as a red/black shard assignment
// of a B-tree's pages, uses to tell how many hops cross to the other
// shard), with a self-launching kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child writes its parent's value (written
// before the launch, so visible to the child grid) plus the low bit of its
// OWN id, and a child with children of its own launches the same kernel on
// them. A count along root paths; integer, exact (each node is written
// once). Written for issue 22's twentieth held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 odd_ancestors.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef OA_BLOCK
#define OA_BLOCK 64
#endif

__global__ void odd_id_ancestors(const unsigned *first_child, const unsigned *kids, unsigned *odd, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    odd[c] = odd[node] + (c & 1u);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) odd_id_ancestors<<<(n + OA_BLOCK - 1) / OA_BLOCK, OA_BLOCK>>>(first_child, kids, odd, c);
  }
}

static std::vector<uint32_t> odd_id_ancestors_ref(const tree::csr &t) {
  std::vector<uint32_t> o(t.nodes, 0u);  // the root (id 0): 0
  for (uint32_t p = 0; p < t.nodes; ++p)  // parents come first
    for (uint32_t s = t.child_offsets[p]; s < t.child_offsets[p + 1]; ++s)
      o[t.children[s]] = o[p] + (t.children[s] & 1u);
  return o;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *odd, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    odd_id_ancestors<<<(root_degree + OA_BLOCK - 1) / OA_BLOCK, OA_BLOCK>>>(first_child, kids, odd, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("odd_ancestors", argc, argv, 0u, odd_id_ancestors_ref, run);
}
