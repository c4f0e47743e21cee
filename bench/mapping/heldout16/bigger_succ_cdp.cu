// Held-out case (bench/mapping/heldout16.tsv): how many of every vertex's
// successors have a higher out-degree (the "climbing" neighbours a
// degree-assortativity study or a hub-seeking greedy router counts), with
// dynamic parallelism: every vertex with out-edges launches a child grid
// over them, passing its own degree by value, and child thread j does
// atomicAdd(1) on the PARENT's slot when the target's out-degree, read from
// the row offsets, is larger. Integer, exact (addition commutes). Written
// for issue 22's sixteenth held-out set, before any tuning on it; no weight
// of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 bigger_succ_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef BS_BLOCK
#define BS_BLOCK 128
#endif

__global__ void tally_bigger(const unsigned *row, const unsigned *adj, unsigned first, unsigned deg, unsigned v,
                             unsigned *bigger) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    if (row[u + 1] - row[u] > deg) atomicAdd(&bigger[v], 1u);
  }
}

__global__ void count_bigger_successors(const unsigned *row, const unsigned *adj, unsigned *bigger, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) tally_bigger<<<(deg + BS_BLOCK - 1) / BS_BLOCK, BS_BLOCK>>>(row, adj, first, deg, v, bigger);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bigger_succ_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *bigger;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&bigger, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(bigger, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    count_bigger_successors<<<(nv + 127) / 128, 128>>>(row, adj, bigger, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), bigger, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    launching += g.degree(v) > 0;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[v] += g.degree(g.targets[e]) > g.degree(v);
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("bigger_succ_cdp: %u vertices, %u edges, %u launching, median %.3f ms%s\n", nv, ne, launching,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
