// Held-out case (bench/mapping/heldout3.tsv): a fan-out census of a tree (the
// out-degree statistics a file-system or B-tree checker gathers) with a
// self-launching kernel (the recursion templates' input form,
// irregular-loop-and-recursion-templates.md II-C, CDP2): one child grid per
// node over its children; each child adds one to the count of nodes with its
// number of children, and a child with children of its own launches the same
// kernel on them. The result holds, at index d, the number of non-root nodes
// with d children. Written for issue 22's third held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 fanout_census.cu -lcudadevrt
#include "tree_driver.cuh"

#ifndef FAN_BLOCK
#define FAN_BLOCK 64
#endif

__global__ void fanout_count(const unsigned *first_child, const unsigned *kids, unsigned *count, unsigned node) {
  unsigned s = first_child[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (s < first_child[node + 1]) {
    unsigned c = kids[s];
    unsigned n = first_child[c + 1] - first_child[c];
    atomicAdd(&count[n], 1u);
    if (n > 0) fanout_count<<<(n + FAN_BLOCK - 1) / FAN_BLOCK, FAN_BLOCK>>>(first_child, kids, count, c);
  }
}

static std::vector<uint32_t> fanout_ref(const tree::csr &t) {
  std::vector<uint32_t> count(t.nodes, 0);
  for (uint32_t v = 1; v < t.nodes; ++v) ++count[t.degree(v)];
  return count;
}

static void run(const unsigned *first_child, const unsigned *kids, unsigned *count, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    fanout_count<<<(root_degree + FAN_BLOCK - 1) / FAN_BLOCK, FAN_BLOCK>>>(first_child, kids, count, 0u);
}

int main(int argc, char **argv) { return tree::run_main("fanout_census", argc, argv, 0u, fanout_ref, run); }
