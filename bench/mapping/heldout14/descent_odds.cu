// Held-out case (bench/mapping/heldout14.tsv): the odds against reaching every
// node by a uniform random descent from the root (the product of the fan-outs
// along its root path, the inverse of its probability under the random walk
// that Knuth's tree-size estimator and Monte-Carlo tree sampling use; kept
// modulo 2^32), with a self-launching kernel (the recursion templates' input
// form, irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid
// per node over its children; each child writes its parent's odds (written
// before the launch, so visible to the child grid) times the PARENT's child
// count, read from the child offsets, and a child with children of its own
// launches the same kernel on them. A product along root paths; integer,
// exact (each node is written once). Written for issue 22's fourteenth
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 descent_odds.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef DO_BLOCK
#define DO_BLOCK 64
#endif

__global__ void descent_odds(const unsigned *first_child, const unsigned *kids, unsigned *odds, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    odds[c] = odds[node] * (first_child[node + 1] - first_child[node]);
    unsigned n = first_child[c + 1] - first_child[c];
    if (n > 0) descent_odds<<<(n + DO_BLOCK - 1) / DO_BLOCK, DO_BLOCK>>>(first_child, kids, odds, c);
  }
}

static std::vector<uint32_t> descent_odds_ref(const tree::csr &t) {
  std::vector<uint32_t> o(t.nodes, 1u);  // the root: 1
  for (uint32_t v = 1; v < t.nodes; ++v) o[v] = o[t.parent[v]] * t.degree(t.parent[v]);  // parents come first
  return o;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *odds, unsigned root_degree, unsigned) {
  if (root_degree > 0) descent_odds<<<(root_degree + DO_BLOCK - 1) / DO_BLOCK, DO_BLOCK>>>(first_child, kids, odds, 0u);
}

int main(int argc, char **argv) { return tree::run_main("descent_odds", argc, argv, 1u, descent_odds_ref, run); }
