// Held-out case (bench/mapping/heldout9.tsv): one relaxation round of
// earliest-arrival paths on a temporal graph with dynamic parallelism (the
// time-respecting reachability of contact, transit or message graphs, where
// edge v -> u departs at a given time and takes its weight in time): every
// vertex already reached launches a child grid over its out-edges, and child
// thread j, for an edge leaving no earlier than the vertex's arrival, lowers
// the target's next arrival with atomicMin. Arrivals are read from the
// previous round and written to the next (Jacobi style), so the result is
// exact in any order. About half the vertices are reached. Written for issue
// 22's ninth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 temporal_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef TEMP_BLOCK
#define TEMP_BLOCK 64
#endif

#define NOT_REACHED 0xFFFFFFFFu

__global__ void relax_departures(const unsigned *adj, const unsigned *depart, const unsigned *duration,
                                 unsigned first, unsigned deg, unsigned arrived, unsigned *next_arrival) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned e = first + j;
    unsigned leave = depart[e];
    if (leave >= arrived) atomicMin(&next_arrival[adj[e]], leave + duration[e]);
  }
}

__global__ void earliest_arrival_round(const unsigned *row, const unsigned *adj, const unsigned *depart,
                                       const unsigned *duration, const unsigned *arrival, unsigned *next_arrival,
                                       unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nv) return;
  unsigned arrived = arrival[v];
  if (arrived == NOT_REACHED) return;
  unsigned first = row[v];
  unsigned deg = row[v + 1] - first;
  if (deg > 0)
    relax_departures<<<(deg + TEMP_BLOCK - 1) / TEMP_BLOCK, TEMP_BLOCK>>>(adj, depart, duration, first, deg, arrived,
                                                                          next_arrival);
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
    std::fprintf(stderr, "temporal_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  // Departures in [0, 1000), durations the edge weights (1 to 100); a vertex
  // is reached with probability 1/2, at a time in [0, 600).
  std::vector<unsigned> depart(ne), arrival(nv);
  for (unsigned e = 0; e < ne; ++e) depart[e] = mix32(e * 0x9E3779B9u + 961u) % 1000u;
  for (unsigned v = 0; v < nv; ++v) {
    const unsigned h = mix32(v * 0x85EBCA6Bu + 962u);
    arrival[v] = (h & 1u) ? (h >> 1) % 600u : NOT_REACHED;
  }
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *dep, *dur, *arr, *next;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dep, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dur, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&arr, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&next, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dep, depart.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dur, g.weights.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(arr, arrival.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemcpy(next, arr, nv * sizeof(unsigned), cudaMemcpyDeviceToDevice));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    earliest_arrival_round<<<(nv + 127) / 128, 128>>>(row, adj, dep, dur, arr, next, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(arrival);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), next, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned improved = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (arrival[v] == NOT_REACHED) continue;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (depart[e] >= arrival[v]) ref[g.targets[e]] = std::min(ref[g.targets[e]], depart[e] + g.weights[e]);
  }
  for (unsigned v = 0; v < nv; ++v) improved += ref[v] != arrival[v];
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("temporal_cdp: %u vertices, %u edges, %u arrivals improved, median %.3f ms%s\n", nv, ne, improved,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
