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
#include <nestor/rec.cuh>

#define DEWEY_BLOCK 128

// One child: its pre-order statements, then whether it recurses (dewey_labels, lines 15-24).
__device__ __forceinline__ bool dewey_labels_nestor_visit(const unsigned *child_offsets, const unsigned *children, unsigned *label, unsigned node, unsigned int child, unsigned int slot) {
  label[child] = label[node] * 1000003u + (slot - child_offsets[node]) + 1u;
  unsigned fanout = child_offsets[child + 1] - child_offsets[child];
  return fanout != 0;
}

// One level of dewey_labels's recursion without dynamic parallelism (rec-flat,
// "Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C): one thread per (frontier node, child) pair; a child that recursed
// in the original joins the next frontier.
__global__ void dewey_labels_nestor_level(const unsigned *child_offsets, const unsigned *children, unsigned *label, const unsigned int *nestor_frontier, const unsigned *nestor_first, unsigned nestor_nodes,
    unsigned nestor_pairs, unsigned int *nestor_next, unsigned *nestor_next_count) {
  for (unsigned nestor_p = blockIdx.x * blockDim.x + threadIdx.x; nestor_p < nestor_pairs;
       nestor_p += gridDim.x * blockDim.x) {
    const unsigned nestor_f = nestor::rec::owner(nestor_first, nestor_nodes, nestor_p);
    const unsigned int node = nestor_frontier[nestor_f];
    const unsigned int child = children[child_offsets[node] + (nestor_p - nestor_first[nestor_f])];
    if (dewey_labels_nestor_visit(child_offsets, children, label, node, child, static_cast<unsigned int>(child_offsets[node] + (nestor_p - nestor_first[nestor_f]))))
      nestor::rec::push(nestor_next, nestor_next_count, static_cast<unsigned int>(child));
  }
}

// dewey_labels's recursion from node, level by level, on the host's default stream (replaces its
// launches; no CDP needed).
static void dewey_labels_nestor_flat(const unsigned *child_offsets, const unsigned *children, unsigned *label, unsigned node) {
  nestor::rec::level_worklist<unsigned int> nestor_wl(node);
  while (nestor_wl.expand(child_offsets)) {
    dewey_labels_nestor_level<<<nestor_wl.blocks(), nestor_wl.block_size>>>(child_offsets, children, label, nestor_wl.frontier(), nestor_wl.first(), nestor_wl.nodes(), nestor_wl.pairs(),
        nestor_wl.next(), nestor_wl.next_count());
    nestor_wl.advance();
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
    dewey_labels_nestor_flat(child_offsets, children, label, 0u);
}

int main(int argc, char **argv) { return tree::run_main("dewey_labels", argc, argv, 1u, dewey_ref, run); }
