// Held-out case (bench/mapping/heldout20.tsv): the XOR of every node's
// ancestors' ids and its own (a cheap path signature that a Merkle-style
// directory tree or a scene graph's dirty-tracking pass compares to detect a
// moved subtree), with a self-launching kernel (the recursion templates'
// input form, irregular-loop-and-recursion-templates.md II-C, CDP2): one
// child grid per node over its children; each child writes its parent's
// value (written before the launch, so visible to the child grid) XOR its
// OWN id, and a child with children of its own launches the same kernel on
// them. An XOR along root paths; unsigned, exact (each node is written
// once). Written for issue 22's twentieth held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 ancestor_xor.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef AX_BLOCK
#define AX_BLOCK 64
#endif

__global__ void ancestor_id_xor(const unsigned *first_child, const unsigned *kids, unsigned *sig, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    sig[c] = sig[node] ^ c;
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) ancestor_id_xor<<<(n + AX_BLOCK - 1) / AX_BLOCK, AX_BLOCK>>>(first_child, kids, sig, c);
  }
}

static std::vector<uint32_t> ancestor_id_xor_ref(const tree::csr &t) {
  std::vector<uint32_t> x(t.nodes, 0u);  // the root: 0
  for (uint32_t p = 0; p < t.nodes; ++p)  // parents come first
    for (uint32_t s = t.child_offsets[p]; s < t.child_offsets[p + 1]; ++s)
      x[t.children[s]] = x[p] ^ t.children[s];
  return x;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *sig, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    ancestor_id_xor<<<(root_degree + AX_BLOCK - 1) / AX_BLOCK, AX_BLOCK>>>(first_child, kids, sig, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("ancestor_xor", argc, argv, 0u, ancestor_id_xor_ref, run);
}
