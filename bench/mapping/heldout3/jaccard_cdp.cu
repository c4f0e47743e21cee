// Held-out case (bench/mapping/heldout3.tsv): per-edge neighbourhood overlap,
// the numerator of the Jaccard similarity of each edge's two ends (the
// link-prediction pass of graph analytics libraries), with dynamic
// parallelism: each vertex u launches a child grid over its out-edges, and the
// child thread of edge (u, w) merges u's and w's sorted lists and writes the
// number of neighbours they share into the edge's slot. Children walk two
// lists each: long on the power-law graph's hubs.
// Written for issue 22's third held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 jaccard_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef OVL_BLOCK
#define OVL_BLOCK 128
#endif

__global__ void edge_overlap(const unsigned *row, const unsigned *adj, unsigned ufirst, unsigned udeg,
                             unsigned *shared) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < udeg) {
    unsigned w = adj[ufirst + k];
    unsigned a = ufirst, a_end = ufirst + udeg;
    unsigned b = row[w], b_end = row[w + 1];
    unsigned common = 0;
    while (a < a_end && b < b_end) {
      unsigned x = adj[a], y = adj[b];
      common += x == y;
      a += x <= y;
      b += y <= x;
    }
    shared[ufirst + k] = common;
  }
}

__global__ void jaccard_edges(const unsigned *row, const unsigned *adj, unsigned *shared, unsigned nv) {
  unsigned u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u < nv) {
    unsigned first = row[u];
    unsigned deg = row[u + 1] - first;
    if (deg > 0) edge_overlap<<<(deg + OVL_BLOCK - 1) / OVL_BLOCK, OVL_BLOCK>>>(row, adj, first, deg, shared);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "jaccard_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices;
  // Sorted lists without repeats: the merge needs them.
  {
    std::vector<uint32_t> offsets(1, 0), targets;
    for (unsigned v = 0; v < nv; ++v) {
      std::vector<uint32_t> n(g.targets.begin() + g.offsets[v], g.targets.begin() + g.offsets[v + 1]);
      std::sort(n.begin(), n.end());
      n.erase(std::unique(n.begin(), n.end()), n.end());
      targets.insert(targets.end(), n.begin(), n.end());
      offsets.push_back(uint32_t(targets.size()));
    }
    g.offsets = std::move(offsets);
    g.targets = std::move(targets);
  }
  const size_t ne = g.targets.size();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *shared;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&shared, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(shared, 0xff, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    jaccard_edges<<<(nv + 63) / 64, 64>>>(row, adj, shared, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(ne);
  NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), shared, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::vector<unsigned> ref(ne, 0);
  for (unsigned u = 0; u < nv; ++u)
    for (unsigned e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
      unsigned w = g.targets[e];
      std::vector<uint32_t> both;
      std::set_intersection(g.targets.begin() + g.offsets[u], g.targets.begin() + g.offsets[u + 1],
                            g.targets.begin() + g.offsets[w], g.targets.begin() + g.offsets[w + 1],
                            std::back_inserter(both));
      ref[e] = unsigned(both.size());
    }
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("jaccard_cdp: %u vertices, %zu edges, median %.3f ms%s\n", nv, ne, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
