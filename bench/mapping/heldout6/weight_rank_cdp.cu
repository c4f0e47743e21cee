// Held-out case (bench/mapping/heldout6.tsv): the rank of every edge's weight
// within its vertex's adjacency list with dynamic parallelism (the counting
// sort that orders each list by weight for a top-k neighbour selection or a
// Kruskal/Boruvka-style lightest-edge pass, as KLAP's per-vertex child kernels
// would write it): every vertex launches a child grid over its out-edges, and
// child thread j counts the edges of the same list that come before edge j
// (a lighter weight, or an equal one at a smaller index), a loop in the child
// over the whole list. The result is every edge's rank, a permutation of each
// list; integer, exact. Written for issue 22's sixth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 weight_rank_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef WRANK_BLOCK
#define WRANK_BLOCK 64
#endif

__global__ void rank_in_list(const unsigned *wt, unsigned first, unsigned deg, unsigned *rank) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned w = wt[first + j], r = 0;
    for (unsigned k = 0; k < deg; ++k) {
      unsigned x = wt[first + k];
      r += (x < w || (x == w && k < j)) ? 1u : 0u;
    }
    rank[first + j] = r;
  }
}

__global__ void rank_edges(const unsigned *row, const unsigned *wt, unsigned *rank, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) rank_in_list<<<(deg + WRANK_BLOCK - 1) / WRANK_BLOCK, WRANK_BLOCK>>>(wt, first, deg, rank);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "weight_rank_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *wt, *rank;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&wt, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&rank, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(wt, g.weights.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(rank, 0, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    rank_edges<<<(nv + 127) / 128, 128>>>(row, wt, rank, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(ne), ref(ne, 0);
  if (ne) NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), rank, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  // The serial reference: a stable sort of each list by weight (weights are
  // 1..100, so a counting sort), the rank being the position in it.
  for (unsigned v = 0; v < nv; ++v) {
    unsigned count[graph::kMaxWeight + 2] = {};
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ++count[g.weights[e] + 1];
    for (unsigned w = 1; w <= graph::kMaxWeight + 1; ++w) count[w] += count[w - 1];
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[e] = count[g.weights[e]]++;
  }
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("weight_rank_cdp: %u vertices, %u edges, median %.3f ms%s\n", nv, ne, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
