// Held-out case (bench/mapping/heldout5.tsv): the running total of edge
// weights within every vertex's adjacency list with dynamic parallelism (the
// cumulative weights a weighted random walk or a neighbour sampler builds to
// draw an edge by binary search, as in KLAP's per-vertex child kernels): every
// vertex launches a child grid over its out-edges, and child thread j sums
// the weights of edges 0..j of the list itself, a loop in the child whose
// trip count grows with j. The result is every edge's inclusive prefix in
// CSR order; integer, exact. Written for issue 22's fifth held-out set, before
// any tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 edge_prefix_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef PREFIX_BLOCK
#define PREFIX_BLOCK 64
#endif

__global__ void prefix_walk(const unsigned *wt, unsigned first, unsigned deg, unsigned *pre) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned s = 0;
    for (unsigned k = 0; k <= j; ++k) s += wt[first + k];
    pre[first + j] = s;
  }
}

__global__ void edge_prefix(const unsigned *row, const unsigned *wt, unsigned *pre, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) prefix_walk<<<(deg + PREFIX_BLOCK - 1) / PREFIX_BLOCK, PREFIX_BLOCK>>>(wt, first, deg, pre);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "edge_prefix_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *wt, *pre;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&wt, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&pre, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(wt, g.weights.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(pre, 0, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    edge_prefix<<<(nv + 127) / 128, 128>>>(row, wt, pre, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(ne), ref(ne, 0);
  if (ne) NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), pre, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned v = 0; v < nv; ++v) {
    unsigned s = 0;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[e] = s += g.weights[e];
  }
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("edge_prefix_cdp: %u vertices, %u edges, median %.3f ms%s\n", nv, ne, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
