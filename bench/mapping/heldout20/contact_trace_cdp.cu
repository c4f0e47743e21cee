// Held-out case (bench/mapping/heldout20.tsv): how many infected contacts
// every person has had (the exposure count a contact-tracing or an
// epidemic-simulation step, as in agent-based SIR models, tallies before
// drawing new infections), with dynamic parallelism: only the infected
// vertices, one in four by a hash of the id and the day's seed (passed by
// value), with out-edges launch a child grid over them, and child thread j
// adds 1 to the TARGET's slot with atomicAdd. Unsigned, exact in any order.
// Written for issue 22's twentieth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 contact_trace_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef CT_BLOCK
#define CT_BLOCK 128
#endif

__host__ __device__ inline bool is_infected(unsigned v, unsigned seed) {
  unsigned x = v * 0x9E3779B9u + seed;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  x *= 0x297A2D39u;
  x ^= x >> 15;
  return (x & 3u) == 0u;
}

__global__ void expose_contacts(const unsigned *adj, unsigned first, unsigned deg, unsigned *exposures) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) atomicAdd(&exposures[adj[first + j]], 1u);
}

__global__ void count_infected_contacts(const unsigned *row, const unsigned *adj, unsigned *exposures, unsigned nv,
                                        unsigned seed) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv && is_infected(v, seed)) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) expose_contacts<<<(deg + CT_BLOCK - 1) / CT_BLOCK, CT_BLOCK>>>(adj, first, deg, exposures);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "contact_trace_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  const unsigned seed = 2091u;
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *exposures;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&exposures, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(exposures, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    count_infected_contacts<<<(nv + 127) / 128, 128>>>(row, adj, exposures, nv, seed);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), exposures, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (!is_infected(v, seed) || g.degree(v) == 0) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ++ref[g.targets[e]];
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("contact_trace_cdp: %u vertices, %u edges, %u launching, median %.3f ms%s\n", nv, ne, launching,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
