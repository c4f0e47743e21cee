// Held-out case (bench/mapping/heldout18.tsv): the smallest label on every
// node's root path, the node included (the "oldest ancestor" a version
// tree or a phylogeny keeps per node when labels are creation stamps, and
// the dominating key a min-heap-ordered repair of a trie needs), with a
// self-launching kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child writes the MIN of its parent's value
// (written before the launch, so visible to the child grid) and its OWN
// label, a hash of its id, and a child with children of its own launches
// the same kernel on them. The root keeps 0xFFFFFFFF. A min along root
// paths; integer, exact (each node is written once). Written for issue 22's
// eighteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 min_path_label.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef MP_BLOCK
#define MP_BLOCK 64
#endif

__host__ __device__ inline unsigned node_label(unsigned v) {
  unsigned h = v * 0x9E3779B9u + 1921u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return h % 1000000u;
}

__global__ void smallest_path_label(const unsigned *first_child, const unsigned *kids, unsigned *low, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    low[c] = min(low[node], node_label(c));
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) smallest_path_label<<<(n + MP_BLOCK - 1) / MP_BLOCK, MP_BLOCK>>>(first_child, kids, low, c);
  }
}

static std::vector<uint32_t> smallest_path_label_ref(const tree::csr &t) {
  std::vector<uint32_t> m(t.nodes, 0xFFFFFFFFu);  // the root keeps the initial value
  for (uint32_t v = 1; v < t.nodes; ++v) m[v] = std::min(m[t.parent[v]], node_label(v));  // parents first
  return m;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *low, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    smallest_path_label<<<(root_degree + MP_BLOCK - 1) / MP_BLOCK, MP_BLOCK>>>(first_child, kids, low, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("min_path_label", argc, argv, 0xFFFFFFFFu, smallest_path_label_ref, run);
}
