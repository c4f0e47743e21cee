// Held-out case (bench/mapping/heldout15.tsv): which active vertices feed a
// sink (a vertex without out-edges: the dangling pages a PageRank solver
// must redistribute, or the dead-end states a model checker reports), with
// dynamic parallelism: only the active vertices (about two in five, chosen
// by a hash of the id, the hub among them; say those whose rank changed in
// the last sweep) with out-edges launch a child grid over them, and child
// thread j PLAIN-writes 1 into the PARENT's slot when the target's
// out-degree, read from the row offsets, is 0 (every writer writes the same
// value). Inactive vertices keep 0. Integer, exact. Written for issue 22's
// fifteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 sink_feed_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef SK_BLOCK
#define SK_BLOCK 128
#endif

__global__ void flag_sink_edge(const unsigned *row, const unsigned *adj, unsigned first, unsigned deg, unsigned v,
                               unsigned *feeds) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    if (row[u + 1] == row[u]) feeds[v] = 1u;
  }
}

__global__ void flag_sink_feeders(const unsigned *row, const unsigned *adj, const unsigned char *active,
                                  unsigned *feeds, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv && active[v]) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) flag_sink_edge<<<(deg + SK_BLOCK - 1) / SK_BLOCK, SK_BLOCK>>>(row, adj, first, deg, v, feeds);
  }
}

// Two in five vertices active, from a hash of the id (the hub, vertex 0,
// among them).
static unsigned char is_active(unsigned v) {
  unsigned h = v * 0x9E3779B9u + 1571u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return (unsigned char)(v == 0 || h % 5u < 2u);
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "sink_feed_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  std::vector<unsigned char> active(nv);
  for (unsigned v = 0; v < nv; ++v) active[v] = is_active(v);
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *feeds;
  unsigned char *dactive;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&feeds, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dactive, nv));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dactive, active.data(), nv, cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(feeds, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    flag_sink_feeders<<<(nv + 127) / 128, 128>>>(row, adj, dactive, feeds, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), feeds, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0, feeding = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (!active[v] || g.degree(v) == 0) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (g.degree(g.targets[e]) == 0) ref[v] = 1u;
    feeding += ref[v];
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("sink_feed_cdp: %u vertices, %u edges, %u launching, %u feeding a sink, median %.3f ms%s\n", nv, ne,
              launching, feeding, graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
