// dewey_labels.cu's Dewey labels with the children counted from 0 in a
// one-block grid per node (Li, Wu and Becchi's recursive BFS form): the
// rank among the siblings is the loop's own counter. Input of the rec-hier
// and rec-flat rewrites, which pass it to the child's statements relative
// to the node's first child.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 dewey_labels_counted.cu -lcudadevrt
#include "tree_driver.cuh"

#define DEWEY_THREADS 64

// One child's pre-order statements (dewey_labels_counted, lines 13-20).
__device__ __forceinline__ void dewey_labels_counted_nestor_pre(const unsigned *child_offsets, const unsigned *children, unsigned *label, unsigned node, unsigned int child, unsigned int rank) {
  label[child] = label[node] * 1000003u + rank + 1u;
}

// Whether a child recurses: depends on the tree only, so a block may ask it of every
// grandchild before any of their pre-order statements ran.
__device__ __forceinline__ bool dewey_labels_counted_nestor_recurses(const unsigned *child_offsets, const unsigned *children, unsigned *label, unsigned node, unsigned int child) {
  return child_offsets[child + 1] != child_offsets[child];
}

// dewey_labels_counted after rec-hier ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C, Figure 3(e)): one block per
// child of node, threads over the child's children; the kernel is launched again, by one thread,
// only for a child with grandchildren.
__global__ void dewey_labels_counted(const unsigned *child_offsets, const unsigned *children, unsigned *label, unsigned node) {
  __shared__ int nestor_recurse, nestor_deeper;
  for (unsigned int nestor_slot = child_offsets[node] + blockIdx.x; nestor_slot < child_offsets[node + 1];
       nestor_slot += gridDim.x) {
    const unsigned int child = children[nestor_slot];
    if (threadIdx.x == 0) {
      dewey_labels_counted_nestor_pre(child_offsets, children, label, node, child, static_cast<unsigned int>((nestor_slot) - child_offsets[node]));
      nestor_recurse = dewey_labels_counted_nestor_recurses(child_offsets, children, label, node, child);
      nestor_deeper = 0;
    }
    __syncthreads();
    if (nestor_recurse) {
      // The child's children (thread-mapped): does any of them recurse?
      for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
        if (dewey_labels_counted_nestor_recurses(child_offsets, children, label, child, children[nestor_g])) nestor_deeper = 1;
      __syncthreads();
      if (nestor_deeper) {
        // Recursion on the child, one block per grandchild, launched at block level.
        if (threadIdx.x == 0)
          dewey_labels_counted<<<child_offsets[child + 1] - child_offsets[child], blockDim.x>>>(child_offsets, children, label, child);
      } else {
        // Every grandchild is a leaf of the recursion: this block does them.
        for (unsigned int nestor_g = child_offsets[child] + threadIdx.x; nestor_g < child_offsets[child + 1]; nestor_g += blockDim.x)
          dewey_labels_counted_nestor_pre(child_offsets, children, label, child, children[nestor_g], static_cast<unsigned int>((nestor_g) - child_offsets[child]));
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
  if (root_degree > 0) dewey_labels_counted<<<1, DEWEY_THREADS>>>(child_offsets, children, label, 0u);
}

int main(int argc, char **argv) { return tree::run_main("dewey_labels_counted", argc, argv, 1u, dewey_ref, run); }
