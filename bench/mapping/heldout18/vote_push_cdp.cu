// Held-out case (bench/mapping/heldout18.tsv): every user's endorsement
// score in one push round of a reputation system (the weighted in-degree a
// professional network or a Q&A site's trust score starts from: each user
// endorses the accounts it follows, with a weight of 1 to 8 set by its own
// standing), with dynamic parallelism: every vertex with out-edges launches
// a child grid over them, passing its weight by value, and child thread j
// adds the weight to the TARGET's slot with atomicAdd. Unsigned, exact in
// any order. Written for issue 22's eighteenth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 vote_push_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef VP_BLOCK
#define VP_BLOCK 128
#endif

__host__ __device__ inline unsigned standing_hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

__global__ void add_endorsement(const unsigned *adj, unsigned first, unsigned deg, unsigned w, unsigned *score) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) atomicAdd(&score[adj[first + j]], w);
}

__global__ void push_endorsements(const unsigned *row, const unsigned *adj, unsigned *score, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      add_endorsement<<<(deg + VP_BLOCK - 1) / VP_BLOCK, VP_BLOCK>>>(adj, first, deg, 1u + standing_hash(v + 1891u) % 8u,
                                                                      score);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "vote_push_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *score;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&score, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(score, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    push_endorsements<<<(nv + 127) / 128, 128>>>(row, adj, score, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), score, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    launching += g.degree(v) > 0;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[g.targets[e]] += 1u + standing_hash(v + 1891u) % 8u;
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("vote_push_cdp: %u vertices, %u edges, %u launching, median %.3f ms%s\n", nv, ne, launching,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
