// Held-out case (bench/mapping/heldout19.tsv): a 32-bit polynomial hash of
// every node's Dewey path (the sibling positions, counted from 1, along the
// root path, folded as h * 31 + position modulo 2^32: the key a
// hierarchical document store or a trie-backed configuration tree uses to
// shard nodes by their address), with a self-launching kernel (the
// recursion templates' input form, irregular-loop-and-recursion-
// templates.md II-C, CDP2): one child grid per node over its children; each
// child writes 31 times its parent's value (written before the launch, so
// visible to the child grid) plus its OWN position among its siblings, plus
// 1, and a child with children of its own launches the same kernel on them.
// A polynomial fold along root paths; unsigned, exact (each node is written
// once). Written for issue 22's nineteenth held-out set, before any tuning
// on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 dewey_hash.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef DH_BLOCK
#define DH_BLOCK 64
#endif

__global__ void dewey_path_hash(const unsigned *first_child, const unsigned *kids, unsigned *key, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    key[c] = key[node] * 31u + (s - first_child[node]) + 1u;
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) dewey_path_hash<<<(n + DH_BLOCK - 1) / DH_BLOCK, DH_BLOCK>>>(first_child, kids, key, c);
  }
}

static std::vector<uint32_t> dewey_path_hash_ref(const tree::csr &t) {
  std::vector<uint32_t> h(t.nodes, 0u);  // the root: 0
  for (uint32_t p = 0; p < t.nodes; ++p)  // parents come first
    for (uint32_t s = t.child_offsets[p]; s < t.child_offsets[p + 1]; ++s)
      h[t.children[s]] = h[p] * 31u + (s - t.child_offsets[p]) + 1u;
  return h;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *key, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    dewey_path_hash<<<(root_degree + DH_BLOCK - 1) / DH_BLOCK, DH_BLOCK>>>(first_child, kids, key, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("dewey_hash", argc, argv, 0u, dewey_path_hash_ref, run);
}
