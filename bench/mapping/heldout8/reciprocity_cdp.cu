// Held-out case (bench/mapping/heldout8.tsv): which edges of a directed graph
// are reciprocated, with dynamic parallelism (the reciprocity statistic of
// social-network analysis, or the symmetry check before a graph is treated
// as undirected, in KLAP's per-vertex child style): the out-lists are sorted
// on the host, every vertex launches a child grid over its out-edges, and
// child thread j, for the edge v -> u, binary-searches v in u's sorted
// out-list and writes 1 when it is there, else 0: a binary-search loop in the
// child, about log2(deg(u)) steps for the thread of an edge into u. Integer,
// exact, no atomics. Written for issue 22's eighth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 reciprocity_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef RECIP_BLOCK
#define RECIP_BLOCK 64
#endif

__global__ void find_reverse(const unsigned *row, const unsigned *adj, unsigned first, unsigned deg, unsigned v,
                             unsigned *recip) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    unsigned lo = row[u], hi = row[u + 1];
    while (lo < hi) {
      unsigned mid = lo + (hi - lo) / 2;
      if (adj[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    recip[first + j] = (lo < row[u + 1] && adj[lo] == v) ? 1u : 0u;
  }
}

__global__ void reciprocated_edges(const unsigned *row, const unsigned *adj, unsigned *recip, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) find_reverse<<<(deg + RECIP_BLOCK - 1) / RECIP_BLOCK, RECIP_BLOCK>>>(row, adj, first, deg, v, recip);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "reciprocity_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  // Sorted out-lists (the weights are not used).
  for (unsigned v = 0; v < nv; ++v) std::sort(g.targets.begin() + g.offsets[v], g.targets.begin() + g.offsets[v + 1]);
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *recip;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&recip, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(recip, 0xff, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    reciprocated_edges<<<(nv + 127) / 128, 128>>>(row, adj, recip, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(ne), ref(ne, 0);
  if (ne) NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), recip, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned mutual = 0;
  for (unsigned v = 0; v < nv; ++v)
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const unsigned u = g.targets[e];
      ref[e] = std::binary_search(g.targets.begin() + g.offsets[u], g.targets.begin() + g.offsets[u + 1], v) ? 1u : 0u;
      mutual += ref[e];
    }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("reciprocity_cdp: %u vertices, %u edges, %u reciprocated, median %.3f ms%s\n", nv, ne, mutual,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
