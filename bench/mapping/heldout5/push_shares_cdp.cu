// Held-out case (bench/mapping/heldout5.tsv): one push step of an integer
// credit propagation with dynamic parallelism (the push form of a PageRank-
// or reputation-style update, in the manner of Li/Wu/Becchi's nested
// vertex programs): every vertex launches a child grid over its out-edges,
// and each child thread adds the edge's weight times the source's share
// (1..5, from the source's id) to the target's credit with atomicAdd. The
// result is every vertex's received credit; integer atomics, exact in any
// order. Written for issue 22's fifth held-out set, before any tuning on it;
// no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 push_shares_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef PUSH_BLOCK
#define PUSH_BLOCK 64
#endif

__global__ void push_to_targets(const unsigned *adj, const unsigned *wt, unsigned first, unsigned deg, unsigned share,
                                unsigned *credit) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) atomicAdd(&credit[adj[first + j]], wt[first + j] * share);
}

__global__ void push_shares(const unsigned *row, const unsigned *adj, const unsigned *wt, unsigned *credit, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      push_to_targets<<<(deg + PUSH_BLOCK - 1) / PUSH_BLOCK, PUSH_BLOCK>>>(adj, wt, first, deg, v % 5u + 1u, credit);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "push_shares_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *wt, *credit;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&wt, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&credit, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(wt, g.weights.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(credit, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    push_shares<<<(nv + 127) / 128, 128>>>(row, adj, wt, credit, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(nv), ref(nv, 0);
  NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), credit, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned v = 0; v < nv; ++v)
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[g.targets[e]] += g.weights[e] * (v % 5u + 1u);
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("push_shares_cdp: %u vertices, %u edges, median %.3f ms%s\n", nv, ne, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
