// Tree descendants, the hand-written flat kernel of irregular-loop-and-
// recursion-templates.md Figure 3(c): no recursion, no dynamic parallelism.
// One thread per node walks up to the root adding 1 to every ancestor
// (atomics). The parent array is derived from the CSR arrays inside the timed
// run. bench/templates times it against the recursive original and the
// rec-hier / rec-flat rewrites of descendants.cu.
//
// Build: nvcc -arch=sm_90 -std=c++17 descendants_flat.cu
#include "tree_driver.cuh"

#define TREE_BLOCK 256

__global__ void set_parents(const unsigned *child_offsets, const unsigned *children, unsigned *parent,
                           unsigned nodes) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nodes) return;
  if (v == 0) parent[0] = tree::kNoParent;
  for (unsigned s = child_offsets[v]; s < child_offsets[v + 1]; ++s) parent[children[s]] = v;
}

__global__ void add_to_ancestors(const unsigned *parent, unsigned *desc, unsigned nodes) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nodes) return;
  for (unsigned p = parent[v]; p != tree::kNoParent; p = parent[p]) atomicAdd(&desc[p], 1u);
}

static unsigned *parent_buffer(unsigned nodes) {
  static unsigned *buffer = nullptr;
  static unsigned capacity = 0;
  if (nodes > capacity) {
    if (buffer) cudaFree(buffer);
    TREE_CUDA_CHECK(cudaMalloc(&buffer, nodes * sizeof(unsigned)));
    capacity = nodes;
  }
  return buffer;
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *desc, unsigned, unsigned nodes) {
  unsigned *parent = parent_buffer(nodes);
  unsigned blocks = (nodes + TREE_BLOCK - 1) / TREE_BLOCK;
  set_parents<<<blocks, TREE_BLOCK>>>(child_offsets, children, parent, nodes);
  add_to_ancestors<<<blocks, TREE_BLOCK>>>(parent, desc, nodes);
}

int main(int argc, char **argv) {
  return tree::run_main("descendants_flat", argc, argv, 1u, tree::descendants_ref, run);
}
