// Held-out case (bench/mapping/heldout14.tsv): which out-edges of a
// partitioned graph cross a partition boundary (the cut-edge marks a
// distributed graph system such as a vertex-cut or edge-cut partitioner
// computes before building its halo exchange), with dynamic parallelism: the
// vertices of partition 0 (the pinned, already-placed one, about a quarter)
// keep their marks; every other vertex with out-edges launches a child grid
// over them, passing its own partition by value, and child thread j
// PLAIN-writes 1 into the edge's own slot when the target's partition
// differs, else 0. Integer, exact (each slot written at most once). Written
// for issue 22's fourteenth held-out set, before any tuning on it; no weight
// of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 cut_edges_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef CE_BLOCK
#define CE_BLOCK 128
#endif

__global__ void mark_edges(const unsigned *adj, const unsigned char *part, unsigned first, unsigned deg, unsigned pv,
                           unsigned *cut) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) cut[first + j] = part[adj[first + j]] != pv ? 1u : 0u;
}

__global__ void mark_cut_edges(const unsigned *row, const unsigned *adj, const unsigned char *part, unsigned *cut,
                               unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv && part[v] != 0) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) mark_edges<<<(deg + CE_BLOCK - 1) / CE_BLOCK, CE_BLOCK>>>(adj, part, first, deg, part[v], cut);
  }
}

// Four partitions from a hash of the id (the hub, vertex 0, lands in one of
// the launching ones).
static unsigned char part_of(unsigned v) {
  unsigned h = v * 0x9E3779B9u + 1481u;
  h ^= h >> 16;
  h *= 0x846CA68Bu;
  h ^= h >> 13;
  return (unsigned char)(v == 0 ? 1u : h & 3u);
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "cut_edges_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  std::vector<unsigned char> part(nv);
  for (unsigned v = 0; v < nv; ++v) part[v] = part_of(v);
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *cut;
  unsigned char *dpart;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&cut, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dpart, nv));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dpart, part.data(), nv, cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(cut, 0xFF, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    mark_cut_edges<<<(nv + 127) / 128, 128>>>(row, adj, dpart, cut, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(ne), ref(ne, 0xFFFFFFFFu);
  if (ne) NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), cut, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0, crossing = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (part[v] == 0 || g.degree(v) == 0) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      ref[e] = part[g.targets[e]] != part[v] ? 1u : 0u;
      crossing += ref[e];
    }
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("cut_edges_cdp: %u vertices, %u edges, %u launching, %u crossing, median %.3f ms%s\n", nv, ne, launching,
              crossing, graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
