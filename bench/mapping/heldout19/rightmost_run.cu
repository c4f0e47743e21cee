// Held-out case (bench/mapping/heldout19.tsv): the length of the run of
// last-child steps that ends at every node (how many levels a node sits at
// the right edge of its ancestors' child lists: a B-tree or a rope's
// append path, where a node on a long rightmost run is split first when the
// structure grows at its end; 0 for a node that is not its parent's last
// child), with a self-launching kernel (the recursion templates' input
// form, irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid
// per node over its children; each child writes its parent's value
// (written before the launch, so visible to the child grid) plus 1 when its
// OWN slot is the last of its siblings, else 0, and a child with children of
// its own launches the same kernel on them. A run length along root paths;
// integer, exact (each node is written once). Written for issue 22's
// nineteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 rightmost_run.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef RR_BLOCK
#define RR_BLOCK 64
#endif

__global__ void rightmost_chain(const unsigned *first_child, const unsigned *kids, unsigned *run_len, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    run_len[c] = s + 1u == first_child[node + 1] ? run_len[node] + 1u : 0u;
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) rightmost_chain<<<(n + RR_BLOCK - 1) / RR_BLOCK, RR_BLOCK>>>(first_child, kids, run_len, c);
  }
}

static std::vector<uint32_t> rightmost_chain_ref(const tree::csr &t) {
  std::vector<uint32_t> r(t.nodes, 0u);  // the root: 0
  for (uint32_t p = 0; p < t.nodes; ++p)  // parents come first
    for (uint32_t s = t.child_offsets[p]; s < t.child_offsets[p + 1]; ++s)
      r[t.children[s]] = s + 1u == t.child_offsets[p + 1] ? r[p] + 1u : 0u;
  return r;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *run_len, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    rightmost_chain<<<(root_degree + RR_BLOCK - 1) / RR_BLOCK, RR_BLOCK>>>(first_child, kids, run_len, 0u);
}

int main(int argc, char **argv) {
  return tree::run_main("rightmost_run", argc, argv, 0u, rightmost_chain_ref, run);
}
