// Held-out case (bench/mapping/heldout5.tsv): a one-hash MinHash sketch of
// every vertex's out-neighbourhood with dynamic parallelism (the signature
// pass of a near-duplicate or similarity-join code over a graph, written
// Gunrock-advance style with one child grid per vertex): each child thread
// gathers its neighbour's tag, hashes it with the neighbour's id and the
// vertex's salt, and lowers the vertex's signature with atomicMin. Vertices
// without out-edges keep 4294967295. Integer atomics, exact in any order.
// Written for issue 22's fifth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 sketch_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef SKETCH_BLOCK
#define SKETCH_BLOCK 128
#endif

__host__ __device__ inline unsigned sketch_hash(unsigned w, unsigned tag, unsigned salt) {
  unsigned h = (w ^ salt) * 0x9E3779B1u;
  h ^= h >> 15;
  h *= 0x85EBCA77u;
  h ^= tag;
  h ^= h >> 13;
  h *= 0xC2B2AE3Du;
  return h ^ (h >> 16);
}

__global__ void hash_neighbours(const unsigned *adj, const unsigned *tag, unsigned first, unsigned deg, unsigned salt,
                                unsigned *sig) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned w = adj[first + j];
    atomicMin(sig, sketch_hash(w, tag[w], salt));
  }
}

__global__ void neighbour_sketch(const unsigned *row, const unsigned *adj, const unsigned *tag, unsigned *sig,
                                 unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      hash_neighbours<<<(deg + SKETCH_BLOCK - 1) / SKETCH_BLOCK, SKETCH_BLOCK>>>(adj, tag, first, deg, v * 7919u + 1u,
                                                                                 sig + v);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "sketch_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  // A tag per vertex (its community, say): a seeded hash of the id.
  std::vector<unsigned> tag(nv);
  for (unsigned v = 0; v < nv; ++v) tag[v] = (v * 2654435761u) >> 20;
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *dtag, *sig;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dtag, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&sig, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dtag, tag.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(sig, 0xFF, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    neighbour_sketch<<<(nv + 127) / 128, 128>>>(row, adj, dtag, sig, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(nv), ref(nv, 0xFFFFFFFFu);
  NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), sig, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned v = 0; v < nv; ++v)
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      ref[v] = std::min(ref[v], sketch_hash(g.targets[e], tag[g.targets[e]], v * 7919u + 1u));
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("sketch_cdp: %u vertices, %u edges, median %.3f ms%s\n", nv, ne, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
