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

// One child's pre-order statements (dewey_labels, lines 15-24).
__device__ __forceinline__ void dewey_labels_nestor_pre(const unsigned *child_offsets, const unsigned *children, unsigned *label, unsigned node, unsigned int child, unsigned int slot) {
  label[child] = label[node] * 1000003u + (slot - child_offsets[node]) + 1u;
  unsigned fanout = child_offsets[child + 1] - child_offsets[child];
}

// Whether a child recurses: depends on the tree only, so a block may ask it of every
// grandchild before any of their pre-order statements ran.
__device__ __forceinline__ bool dewey_labels_nestor_recurses(const unsigned *child_offsets, const unsigned *children, unsigned *label, unsigned node, unsigned int child) {
  unsigned fanout = child_offsets[child + 1] - child_offsets[child];
  return fanout != 0;
}

// dewey_labels after rec-hier ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C, Figure 3(e)): one block per
// child of node, threads over the child's children; the kernel is launched again, by one thread,
// only for a child with grandchildren.
__global__ void dewey_labels(const unsigned *child_offsets, const unsigned *children, unsigned *label, unsigned node) {
  __shared__ int nestor_recurse, nestor_deeper;
  for (unsigned int nestor_slot = child_offsets[node] + blockIdx.x; nestor_slot < child_offsets[node + 1];
       nestor_slot += gridDim.x) {
    const unsigned int child = children[nestor_slot];
    if (threadIdx.x == 0) {
      dewey_labels_nestor_pre(child_offsets, children, label, node, child, static_cast<unsigned int>(nestor_slot));
      nestor_recurse = dewey_labels_nestor_recurses(child_offsets, children, label, node, child);
      nestor_deeper = 0;
    }
    __syncthreads();
    if (nestor_recurse) {
      // The child's children (thread-mapped): does any of them recurse?
      for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
        if (dewey_labels_nestor_recurses(child_offsets, children, label, child, children[nestor_g])) nestor_deeper = 1;
      __syncthreads();
      if (nestor_deeper) {
        // Recursion on the child, one block per grandchild, launched at block level.
        if (threadIdx.x == 0)
          dewey_labels<<<child_offsets[child + 1] - child_offsets[child], blockDim.x>>>(child_offsets, children, label, child);
      } else {
        // Every grandchild is a leaf of the recursion: this block does them.
        for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
          dewey_labels_nestor_pre(child_offsets, children, label, child, children[nestor_g], static_cast<unsigned int>(nestor_g));
      }
    }
    __syncthreads(); // the flags are reused by the next child
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
