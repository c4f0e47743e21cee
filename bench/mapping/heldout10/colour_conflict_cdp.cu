// Held-out case (bench/mapping/heldout10.tsv): the conflict check of one
// round of speculative greedy graph colouring, with dynamic parallelism (the
// step that Gebremedhin-Manne / Jones-Plassmann style GPU colourers run after
// every vertex has picked a colour): every vertex launches a child grid over
// its neighbours, and child thread j marks the PARENT as losing (a plain store
// of 1 into the parent's one slot, by any number of its children) when the
// neighbour has the same colour and a higher priority (a hash, ties broken by
// vertex id). Integer, exact in any order. Written for issue 22's tenth
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 colour_conflict_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef CONFLICT_BLOCK
#define CONFLICT_BLOCK 128
#endif

__device__ __forceinline__ bool outranks(const unsigned *prio, unsigned u, unsigned v) {
  return prio[u] > prio[v] || (prio[u] == prio[v] && u > v);
}

__global__ void test_neighbour_colours(const unsigned *adj, const unsigned *colour, const unsigned *prio,
                                       unsigned first, unsigned deg, unsigned v, unsigned *loses) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    if (u != v && colour[u] == colour[v] && outranks(prio, u, v)) loses[v] = 1u;
  }
}

__global__ void detect_colour_conflicts(const unsigned *row, const unsigned *adj, const unsigned *colour,
                                        const unsigned *prio, unsigned *loses, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      test_neighbour_colours<<<(deg + CONFLICT_BLOCK - 1) / CONFLICT_BLOCK, CONFLICT_BLOCK>>>(adj, colour, prio, first,
                                                                                             deg, v, loses);
  }
}

static unsigned mix32(unsigned h) {
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "colour_conflict_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  // Colours 0 to 15 and priorities from 32-bit hashes (priorities 0 to 4095,
  // so some ties fall to the vertex id).
  std::vector<unsigned> colour(nv), prio(nv);
  for (unsigned v = 0; v < nv; ++v) {
    colour[v] = mix32(v * 0x85EBCA6Bu + 1071u) & 15u;
    prio[v] = mix32(v * 0x9E3779B9u + 1072u) & 4095u;
  }
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *col, *pr, *loses;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&col, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&pr, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&loses, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(col, colour.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(pr, prio.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(loses, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    detect_colour_conflicts<<<(nv + 127) / 128, 128>>>(row, adj, col, pr, loses, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), loses, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned losing = 0;
  for (unsigned v = 0; v < nv; ++v) {
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const unsigned u = g.targets[e];
      if (u != v && colour[u] == colour[v] && (prio[u] > prio[v] || (prio[u] == prio[v] && u > v))) ref[v] = 1u;
    }
    losing += ref[v];
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("colour_conflict_cdp: %u vertices, %u edges, %u losing, median %.3f ms%s\n", nv, ne, losing,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
