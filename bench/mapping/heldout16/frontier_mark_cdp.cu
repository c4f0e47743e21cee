// Held-out case (bench/mapping/heldout16.tsv): the next frontier of a
// level-synchronous traversal as a bitmap (the "mark" half of a top-down
// BFS step in Gunrock's or LonestarGPU's style, split from the compaction
// that follows), with dynamic parallelism: only the vertices of the current
// frontier (about one in four, chosen by a hash of the id, the hub among
// them) with out-edges launch a child grid over them, and child thread j
// PLAIN-writes 1 into the TARGET's slot (every writer writes the same
// value). Vertices nobody reaches keep 0. Integer, exact. Written for issue
// 22's sixteenth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 frontier_mark_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef FM_BLOCK
#define FM_BLOCK 128
#endif

__global__ void mark_targets(const unsigned *adj, unsigned first, unsigned deg, unsigned *next) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) next[adj[first + j]] = 1u;
}

__global__ void mark_next_frontier(const unsigned *row, const unsigned *adj, const unsigned char *frontier,
                                   unsigned *next, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv && frontier[v]) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) mark_targets<<<(deg + FM_BLOCK - 1) / FM_BLOCK, FM_BLOCK>>>(adj, first, deg, next);
  }
}

// One in four vertices in the frontier, from a hash of the id (the hub,
// vertex 0, among them).
static unsigned char in_frontier(unsigned v) {
  unsigned h = v * 0x9E3779B9u + 1661u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return (unsigned char)(v == 0 || h % 4u == 0u);
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "frontier_mark_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  std::vector<unsigned char> frontier(nv);
  for (unsigned v = 0; v < nv; ++v) frontier[v] = in_frontier(v);
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *next;
  unsigned char *dfrontier;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&next, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dfrontier, nv));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dfrontier, frontier.data(), nv, cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(next, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    mark_next_frontier<<<(nv + 127) / 128, 128>>>(row, adj, dfrontier, next, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), next, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0, marked = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (!frontier[v] || g.degree(v) == 0) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[g.targets[e]] = 1u;
  }
  for (unsigned v = 0; v < nv; ++v) marked += ref[v];
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("frontier_mark_cdp: %u vertices, %u edges, %u launching, %u marked, median %.3f ms%s\n", nv, ne,
              launching, marked, graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
