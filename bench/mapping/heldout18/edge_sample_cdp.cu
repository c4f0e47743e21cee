// Held-out case (bench/mapping/heldout18.tsv): the edge sample of one
// GraphSAINT-style mini-batch (the sampler of a graph neural network's
// training loop keeps the out-edges of a random quarter of the vertices and
// thins them by a hash of both ends), with dynamic parallelism: only the
// batch's vertices (one in four by a hash of the id and the batch seed, the
// hub not forced in) with out-edges launch a child grid over them, passing
// their id and the batch seed by value, and child thread j PLAIN-writes the
// edge's sample tag (1 + its hashed bucket 0..3 when the pair hash keeps it,
// 0 when it drops it) into the edge's OWN slot. Edges of unsampled vertices
// keep 0xFFFFFFFF. Integer, exact (each slot is written once). Written for
// issue 22's eighteenth held-out set, before any tuning on it; no weight of
// the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 edge_sample_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef ES_BLOCK
#define ES_BLOCK 128
#endif

__host__ __device__ inline unsigned sample_hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 15;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x;
}

__host__ __device__ inline bool in_batch(unsigned v, unsigned seed) { return sample_hash(v * 0x9E3779B9u + seed) % 4u == 0u; }

__host__ __device__ inline unsigned edge_tag(unsigned v, unsigned u, unsigned seed) {
  unsigned h = sample_hash(v ^ sample_hash(u + seed));
  return h % 5u < 3u ? 1u + (h >> 8) % 4u : 0u;
}

__global__ void tag_out_edges(const unsigned *adj, unsigned first, unsigned deg, unsigned v, unsigned seed,
                              unsigned *tag) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) tag[first + j] = edge_tag(v, adj[first + j], seed);
}

__global__ void sample_out_edges(const unsigned *row, const unsigned *adj, unsigned *tag, unsigned nv, unsigned seed) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv && in_batch(v, seed)) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) tag_out_edges<<<(deg + ES_BLOCK - 1) / ES_BLOCK, ES_BLOCK>>>(adj, first, deg, v, seed, tag);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "edge_sample_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  const unsigned seed = 1901u;
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *tag;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&tag, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(tag, 0xFF, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    sample_out_edges<<<(nv + 127) / 128, 128>>>(row, adj, tag, nv, seed);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(ne), ref(ne, 0xFFFFFFFFu);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), tag, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (!in_batch(v, seed) || g.degree(v) == 0) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[e] = edge_tag(v, g.targets[e], seed);
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("edge_sample_cdp: %u vertices, %u edges, %u launching, median %.3f ms%s\n", nv, ne, launching,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
