// Held-out case (bench/mapping/heldout19.tsv): which accounts one hop from a
// fraud seed set receive money (the first expansion of a payment network's
// fraud-ring search: the seeds are one account in eight, picked by a hash of
// the id and the case's seed, and every account they pay is marked for
// review), with dynamic parallelism: only the seed vertices with out-edges
// launch a child grid over them, and child thread j PLAIN-writes 1 into the
// TARGET's slot. Integer, exact (every write stores the same 1). Written for
// issue 22's nineteenth held-out set, before any tuning on it; no weight of
// the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 seed_reach_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef SR_BLOCK
#define SR_BLOCK 128
#endif

__host__ __device__ inline bool is_seed(unsigned v, unsigned seed) {
  unsigned x = v * 0x9E3779B9u + seed;
  x ^= x >> 16;
  x *= 0x21F0AAADu;
  x ^= x >> 15;
  x *= 0x735A2D97u;
  x ^= x >> 15;
  return (x & 7u) == 0u;
}

__global__ void mark_payee(const unsigned *adj, unsigned first, unsigned deg, unsigned *reached) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) reached[adj[first + j]] = 1u;
}

__global__ void mark_seed_payees(const unsigned *row, const unsigned *adj, unsigned *reached, unsigned nv,
                                 unsigned seed) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv && is_seed(v, seed)) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) mark_payee<<<(deg + SR_BLOCK - 1) / SR_BLOCK, SR_BLOCK>>>(adj, first, deg, reached);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "seed_reach_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  const unsigned seed = 2001u;
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *reached;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&reached, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(reached, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    mark_seed_payees<<<(nv + 127) / 128, 128>>>(row, adj, reached, nv, seed);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), reached, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (!is_seed(v, seed) || g.degree(v) == 0) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[g.targets[e]] = 1u;
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("seed_reach_cdp: %u vertices, %u edges, %u launching, median %.3f ms%s\n", nv, ne, launching,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
