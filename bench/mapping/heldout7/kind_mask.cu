// Held-out case (bench/mapping/heldout7.tsv): the mask of its children's kinds
// for every node of a tree with a self-launching kernel (the recursion
// templates' input form, irregular-loop-and-recursion-templates.md II-C, CDP2;
// the summary a scene graph or a typed octree keeps so that a query for one
// kind of object can skip a node whose children hold none): one child grid per
// node over its children; each child sets the bit of its kind (0..31, from its
// id) in its parent's mask with atomicOr, and a child with children of its
// own launches the same kernel on them. The result holds, for every node, the
// OR of its children's kind bits (0 for a leaf); integer atomics, exact in any
// order. Written for issue 22's seventh held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it. (It replaces, on the
// same trees, a count of every node's leaf children, for which no rewrite was
// offered.)
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 kind_mask.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef KIND_BLOCK
#define KIND_BLOCK 64
#endif

// A node's kind, 0..31, from its id.
__host__ __device__ inline unsigned node_kind(unsigned v) { return (v * 2654435761u) >> 27; }

__global__ void child_kind_mask(const unsigned *first_child, const unsigned *kids, unsigned *mask, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    atomicOr(&mask[node], 1u << node_kind(c));
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) child_kind_mask<<<(n + KIND_BLOCK - 1) / KIND_BLOCK, KIND_BLOCK>>>(first_child, kids, mask, c);
  }
}

static std::vector<uint32_t> kind_mask_ref(const tree::csr &t) {
  std::vector<uint32_t> mask(t.nodes, 0);
  for (uint32_t v = 1; v < t.nodes; ++v) mask[t.parent[v]] |= 1u << node_kind(v);
  return mask;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *mask, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    child_kind_mask<<<(root_degree + KIND_BLOCK - 1) / KIND_BLOCK, KIND_BLOCK>>>(first_child, kids, mask, 0u);
}

int main(int argc, char **argv) { return tree::run_main("kind_mask", argc, argv, 0u, kind_mask_ref, run); }
