// Held-out case (bench/mapping/heldout13.tsv): a 32-bit Bloom filter of every
// node's ancestors (the summary a tree index, an XML path filter or a
// scope-chain lookup keeps per node, so that "is x above me?" can be answered
// "no" without walking the path) with a self-launching kernel (the recursion
// templates' input form, irregular-loop-and-recursion-templates.md II-C,
// CDP2): one child grid per node over its children; each child writes its
// parent's filter (written before the launch, so visible to the child grid)
// ORed with two bits chosen by a hash of the PARENT's id, and a child with
// children of its own launches the same kernel on them. A bitwise OR along
// root paths; integer, exact (each node is written once). Written for issue
// 22's thirteenth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 ancestor_bloom.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef AB_BLOCK
#define AB_BLOCK 64
#endif

__host__ __device__ __forceinline__ unsigned bloom_bits(unsigned v) {
  unsigned h = v * 0x9E3779B9u + 1391u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return (1u << (h & 31u)) | (1u << (h >> 5 & 31u));
}

__global__ void ancestor_bloom(const unsigned *first_child, const unsigned *kids, unsigned *bloom, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    bloom[c] = bloom[node] | bloom_bits(node);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) ancestor_bloom<<<(n + AB_BLOCK - 1) / AB_BLOCK, AB_BLOCK>>>(first_child, kids, bloom, c);
  }
}

static std::vector<uint32_t> ancestor_bloom_ref(const tree::csr &t) {
  std::vector<uint32_t> b(t.nodes, 0u);  // the root has no ancestor
  for (uint32_t v = 1; v < t.nodes; ++v) b[v] = b[t.parent[v]] | bloom_bits(t.parent[v]);  // parents come first
  return b;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *bloom, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    ancestor_bloom<<<(root_degree + AB_BLOCK - 1) / AB_BLOCK, AB_BLOCK>>>(first_child, kids, bloom, 0u);
}

int main(int argc, char **argv) { return tree::run_main("ancestor_bloom", argc, argv, 0u, ancestor_bloom_ref, run); }
