// Held-out case (bench/mapping/heldout11.tsv): the fingerprint of every
// node's root path (the path hash a Merkle-style tree or a trie's
// deduplication pass gives each node, so that two nodes with equal
// fingerprints likely sit at the same path) with a self-launching kernel (the
// recursion templates' input form, irregular-loop-and-recursion-templates.md
// II-C, CDP2): one child grid per node over its children; each child writes
// an FNV-1a-style step of its parent's fingerprint (written before the
// launch, so visible to the child grid) with its own node id, and a child
// with children of its own launches the same kernel on them. Integer, exact
// (each node is written once). Written for issue 22's eleventh held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 path_fingerprint.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef FP_BLOCK
#define FP_BLOCK 64
#endif

#define FNV_PRIME 16777619u
#define FNV_OFFSET 2166136261u

__host__ __device__ __forceinline__ unsigned fnv_step(unsigned h, unsigned id) {
  h = (h ^ (id & 0xFFu)) * FNV_PRIME;
  h = (h ^ (id >> 8 & 0xFFu)) * FNV_PRIME;
  h = (h ^ (id >> 16 & 0xFFu)) * FNV_PRIME;
  return (h ^ (id >> 24)) * FNV_PRIME;
}

__global__ void root_path_fingerprint(const unsigned *first_child, const unsigned *kids, unsigned *fp,
                                      unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    fp[c] = fnv_step(fp[node], c);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) root_path_fingerprint<<<(n + FP_BLOCK - 1) / FP_BLOCK, FP_BLOCK>>>(first_child, kids, fp, c);
  }
}

static std::vector<uint32_t> fingerprint_ref(const tree::csr &t) {
  std::vector<uint32_t> f(t.nodes, FNV_OFFSET);  // the root keeps the offset basis
  for (uint32_t v = 1; v < t.nodes; ++v) f[v] = fnv_step(f[t.parent[v]], v);  // parents come first
  return f;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *fp, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    root_path_fingerprint<<<(root_degree + FP_BLOCK - 1) / FP_BLOCK, FP_BLOCK>>>(first_child, kids, fp, 0u);
}

int main(int argc, char **argv) { return tree::run_main("path_fingerprint", argc, argv, FNV_OFFSET, fingerprint_ref, run); }
