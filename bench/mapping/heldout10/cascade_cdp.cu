// Held-out case (bench/mapping/heldout10.tsv): one round of the independent
// cascade model of influence spread, with dynamic parallelism (the round
// that influence-maximisation codes run millions of times when they sample
// cascades on the GPU): every vertex infected in the last round (about one in
// four) launches a child grid over its out-edges, and child thread j flips
// the edge's coin (a counter-based hash of the edge and the round against the
// edge's weight as a percentage) and, when it comes up and the target is
// still susceptible, marks the target infected in the next round (a plain
// store: every writer writes 1). Integer, exact in any order. Written for
// issue 22's tenth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 cascade_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef CASCADE_BLOCK
#define CASCADE_BLOCK 128
#endif

#define SUSCEPTIBLE 0u
#define ACTIVE 1u
#define REMOVED 2u

__host__ __device__ __forceinline__ unsigned coin_hash(unsigned h) {
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

__global__ void attempt_infections(const unsigned *adj, const unsigned *weight, const unsigned *state, unsigned first,
                                   unsigned deg, unsigned round, unsigned *infected_next) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned e = first + j;
    unsigned u = adj[e];
    if (state[u] == SUSCEPTIBLE && coin_hash(e * 0x9E3779B9u + round) % 100u < weight[e]) infected_next[u] = 1u;
  }
}

__global__ void cascade_round(const unsigned *row, const unsigned *adj, const unsigned *weight, const unsigned *state,
                              unsigned round, unsigned *infected_next, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nv || state[v] != ACTIVE) return;
  unsigned first = row[v];
  unsigned deg = row[v + 1] - first;
  if (deg > 0)
    attempt_infections<<<(deg + CASCADE_BLOCK - 1) / CASCADE_BLOCK, CASCADE_BLOCK>>>(adj, weight, state, first, deg,
                                                                                    round, infected_next);
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "cascade_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  // A quarter of the vertices active (infected in the last round), a quarter
  // removed, the rest susceptible; edge weights (1 to 100) are the
  // infection probabilities in percent, so about half the coins come up.
  const unsigned round = 1063u;
  std::vector<unsigned> state(nv);
  for (unsigned v = 0; v < nv; ++v) {
    const unsigned h = coin_hash(v * 0x85EBCA6Bu + 1062u) & 3u;
    state[v] = h == 0 ? ACTIVE : h == 1 ? REMOVED : SUSCEPTIBLE;
  }
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *wt, *st, *next;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&wt, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&st, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&next, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(wt, g.weights.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(st, state.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(next, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    cascade_round<<<(nv + 127) / 128, 128>>>(row, adj, wt, st, round, next, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), next, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned infected = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (state[v] != ACTIVE) continue;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (state[g.targets[e]] == SUSCEPTIBLE && coin_hash(e * 0x9E3779B9u + round) % 100u < g.weights[e])
        ref[g.targets[e]] = 1u;
  }
  for (unsigned v = 0; v < nv; ++v) infected += ref[v];
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("cascade_cdp: %u vertices, %u edges, %u newly infected, median %.3f ms%s\n", nv, ne, infected,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
