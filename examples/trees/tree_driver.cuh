// The CUDA side of the tree example programs: copies the tree to the device,
// runs a program's `run` function (which launches its kernels) --reps times on
// freshly initialised values, times each run with events, and reports against
// the serial reference (tree.h). Rewrites never touch this file: the launch
// they replace is in each program's own `run`.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tree.h"

#define TREE_CUDA_CHECK(expr)                                                                          \
  do {                                                                                                 \
    cudaError_t err_ = (expr);                                                                         \
    if (err_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));   \
      std::exit(3);                                                                                    \
    }                                                                                                  \
  } while (0)

namespace tree {

using run_fn = void (*)(const unsigned* child_offsets, const unsigned* children, unsigned* values,
                        unsigned root_degree, unsigned nodes);

// `init`: every node's value before the run; `ref`: the serial reference.
inline int run_main(const char* program, int argc, char** argv, unsigned init,
                    std::vector<uint32_t> (*ref)(const csr&), run_fn run) {
  options o;
  csr t;
  try {
    o = parse_options(argc, argv);
    t = make_tree(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n%s", program, e.what(), usage());
    return 2;
  }
  // Dynamic-parallelism variants keep up to two pending launches (the grid and
  // its tail launch) per node with children.
  size_t internal = 0;
  for (uint32_t v = 0; v < t.nodes; ++v) internal += t.degree(v) > 0;
  cudaError_t limit = cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2 * internal + 4096);
  if (limit != cudaSuccess && limit != cudaErrorUnsupportedLimit) TREE_CUDA_CHECK(limit);
  (void)cudaGetLastError();
  unsigned *d_offsets, *d_children, *d_values;
  TREE_CUDA_CHECK(cudaMalloc(&d_offsets, (t.nodes + 1) * sizeof(unsigned)));
  TREE_CUDA_CHECK(cudaMalloc(&d_children, (t.children.size() + 1) * sizeof(unsigned)));
  TREE_CUDA_CHECK(cudaMalloc(&d_values, t.nodes * sizeof(unsigned)));
  TREE_CUDA_CHECK(cudaMemcpy(d_offsets, t.child_offsets.data(), (t.nodes + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  if (!t.children.empty())
    TREE_CUDA_CHECK(cudaMemcpy(d_children, t.children.data(), t.children.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<uint32_t> initial(t.nodes, init), got(t.nodes);
  cudaEvent_t start, stop;
  TREE_CUDA_CHECK(cudaEventCreate(&start));
  TREE_CUDA_CHECK(cudaEventCreate(&stop));
  double best = 1e300;
  for (int rep = 0; rep < o.reps; ++rep) {
    TREE_CUDA_CHECK(cudaMemcpy(d_values, initial.data(), t.nodes * sizeof(unsigned), cudaMemcpyHostToDevice));
    TREE_CUDA_CHECK(cudaEventRecord(start));
    run(d_offsets, d_children, d_values, t.degree(0), t.nodes);
    TREE_CUDA_CHECK(cudaGetLastError());
    TREE_CUDA_CHECK(cudaEventRecord(stop));
    TREE_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    TREE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (ms < best) best = ms;
  }
  TREE_CUDA_CHECK(cudaMemcpy(got.data(), d_values, t.nodes * sizeof(unsigned), cudaMemcpyDeviceToHost));
  cudaFree(d_offsets);
  cudaFree(d_children);
  cudaFree(d_values);
  return report(program, o, t, got, ref(t), best);
}

}  // namespace tree
