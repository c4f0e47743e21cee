// Held-out case (bench/mapping/heldout11.tsv): every vertex's set of
// neighbouring partitions, with dynamic parallelism (the boundary scan of a
// multilevel graph partitioner's refinement or of a distributed graph's
// ghost-vertex set-up, which Gunrock-style partitioned runs need, one vertex
// per parent thread): every vertex launches a child grid over its
// out-edges, and child thread j, when the edge leaves the vertex's
// partition, ORs the target partition's bit into the PARENT's mask with
// atomicOr (32 partitions, blocks of 256 consecutive vertices hashed to a
// partition). Integer, exact in any order. Written for issue 22's eleventh
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 part_mask_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef PART_BLOCK
#define PART_BLOCK 128
#endif

__global__ void mark_foreign_parts(const unsigned *adj, const unsigned char *part, unsigned first, unsigned deg,
                                   unsigned v, unsigned *mask) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned char p = part[adj[first + j]];
    if (p != part[v]) atomicOr(&mask[v], 1u << p);
  }
}

__global__ void neighbour_partitions(const unsigned *row, const unsigned *adj, const unsigned char *part,
                                     unsigned *mask, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      mark_foreign_parts<<<(deg + PART_BLOCK - 1) / PART_BLOCK, PART_BLOCK>>>(adj, part, first, deg, v, mask);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "part_mask_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  std::vector<unsigned char> part(nv);
  for (unsigned v = 0; v < nv; ++v) {
    unsigned h = (v / 256u) * 0x9E3779B9u + 1161u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    part[v] = (unsigned char)(h & 31u);
  }
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *mask;
  unsigned char *dpart;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dpart, nv));
  NESTOR_CUDA_CHECK(cudaMalloc(&mask, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dpart, part.data(), nv, cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(mask, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    neighbour_partitions<<<(nv + 127) / 128, 128>>>(row, adj, dpart, mask, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), mask, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned boundary = 0;
  for (unsigned v = 0; v < nv; ++v) {
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (part[g.targets[e]] != part[v]) ref[v] |= 1u << part[g.targets[e]];
    boundary += ref[v] != 0u;
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("part_mask_cdp: %u vertices, %u edges, %u on a boundary, median %.3f ms%s\n", nv, ne, boundary,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
