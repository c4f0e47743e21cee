// Dewey labels of a tree stored as CSR arrays (the order labels XML and
// document databases give nodes: a node's label extends its parent's with
// its own position among its siblings), hashed to 32 bits: label(child) =
// label(node) x 1000003 + rank + 1, where rank is the child's position in
// its parent's child list, read from the child's slot. Pre-order, one child
// grid per node over its children, one thread per child. Input of the
// rec-hier and rec-flat rewrites, which pass the slot to the child's
// statements.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 dewey_labels.cu -lcudadevrt
#include "tree_driver.cuh"

#define DEWEY_BLOCK 128

__global__ void dewey_labels(const unsigned *child_offsets, const unsigned *children, unsigned *label, unsigned node) {
  unsigned slot = child_offsets[node] + blockIdx.x * blockDim.x + threadIdx.x;
  if (slot < child_offsets[node + 1]) {
    unsigned child = children[slot];
    label[child] = label[node] * 1000003u + (slot - child_offsets[node]) + 1u;
    unsigned fanout = child_offsets[child + 1] - child_offsets[child];
    if (fanout != 0)
      dewey_labels<<<(fanout + DEWEY_BLOCK - 1) / DEWEY_BLOCK, DEWEY_BLOCK>>>(child_offsets, children, label, child);
  }
}

// Children are stored in their parents' order, parents before children.
static std::vector<uint32_t> dewey_ref(const tree::csr &t) {
  std::vector<uint32_t> l(t.nodes, 1u);
  for (uint32_t v = 0; v < t.nodes; ++v)
    for (uint32_t s = t.child_offsets[v]; s < t.child_offsets[v + 1]; ++s)
      l[t.children[s]] = l[v] * 1000003u + (s - t.child_offsets[v]) + 1u;
  return l;
}

static void run(const unsigned *child_offsets, const unsigned *children, unsigned *label, unsigned root_degree, unsigned) {
  if (root_degree > 0)
    dewey_labels<<<(root_degree + DEWEY_BLOCK - 1) / DEWEY_BLOCK, DEWEY_BLOCK>>>(child_offsets, children, label, 0u);
}

int main(int argc, char **argv) { return tree::run_main("dewey_labels", argc, argv, 1u, dewey_ref, run); }
