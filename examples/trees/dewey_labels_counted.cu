// dewey_labels.cu's Dewey labels with the children counted from 0 in a
// one-block grid per node (Li, Wu and Becchi's recursive BFS form): the
// rank among the siblings is the loop's own counter. Input of the rec-hier
// and rec-flat rewrites, which pass it to the child's statements relative
// to the node's first child.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 dewey_labels_counted.cu -lcudadevrt
#include "tree_driver.cuh"

#define DEWEY_THREADS 64

__global__ void dewey_labels_counted(const unsigned *child_offsets, const unsigned *children, unsigned *label,
                                     unsigned node) {
  for (unsigned rank = threadIdx.x; rank < child_offsets[node + 1] - child_offsets[node]; rank += blockDim.x) {
    unsigned child = children[child_offsets[node] + rank];
    label[child] = label[node] * 1000003u + rank + 1u;
    if (child_offsets[child + 1] != child_offsets[child])
      dewey_labels_counted<<<1, DEWEY_THREADS>>>(child_offsets, children, label, child);
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
  if (root_degree > 0) dewey_labels_counted<<<1, DEWEY_THREADS>>>(child_offsets, children, label, 0u);
}

int main(int argc, char **argv) { return tree::run_main("dewey_labels_counted", argc, argv, 1u, dewey_ref, run); }
