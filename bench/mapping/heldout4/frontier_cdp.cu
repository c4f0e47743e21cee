// Held-out case (bench/mapping/heldout4.tsv): breadth-first levels from one
// source with a queue-based frontier and dynamic parallelism (the top-down
// step of Gunrock-style advance/filter BFS written with CDP, in the manner of
// Li/Wu/Becchi's nested BFS): each vertex of the round's frontier launches a
// child grid over its out-neighbours; a child thread claims an unseen
// neighbour with atomicCAS and appends it to the next frontier. Rounds run
// until the frontier is empty; the result is every vertex's level (unreached:
// 4294967295), which is the same whatever the order of the claims.
// Written for issue 22's fourth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 frontier_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef FRONT_BLOCK
#define FRONT_BLOCK 128
#endif
#define UNSEEN 0xFFFFFFFFu

__global__ void claim_neighbours(const unsigned *adj, unsigned first, unsigned deg, unsigned *level, unsigned next_level,
                                 unsigned *next, unsigned *next_size) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned w = adj[first + j];
    if (atomicCAS(&level[w], UNSEEN, next_level) == UNSEEN) next[atomicAdd(next_size, 1u)] = w;
  }
}

__global__ void expand_frontier(const unsigned *row, const unsigned *adj, const unsigned *frontier, unsigned fsize,
                                unsigned *level, unsigned next_level, unsigned *next, unsigned *next_size) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < fsize) {
    unsigned v = frontier[i];
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      claim_neighbours<<<(deg + FRONT_BLOCK - 1) / FRONT_BLOCK, FRONT_BLOCK>>>(adj, first, deg, level, next_level,
                                                                             next, next_size);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "frontier_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices;
  // Every vertex enters a frontier at most once.
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *level, *frontier, *next, *next_size;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (g.edges() + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&level, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&frontier, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&next, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&next_size, sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  const unsigned source = 0, zero = 0;
  unsigned rounds = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(level, 0xFF, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaMemcpy(level + source, &zero, sizeof(unsigned), cudaMemcpyHostToDevice));
    NESTOR_CUDA_CHECK(cudaMemcpy(frontier, &source, sizeof(unsigned), cudaMemcpyHostToDevice));
    unsigned size = 1;
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    for (rounds = 0; size > 0; ++rounds) {
      NESTOR_CUDA_CHECK(cudaMemset(next_size, 0, sizeof(unsigned)));
      expand_frontier<<<(size + 255) / 256, 256>>>(row, adj, frontier, size, level, rounds + 1, next, next_size);
      NESTOR_CUDA_CHECK(cudaGetLastError());
      NESTOR_CUDA_CHECK(cudaMemcpy(&size, next_size, sizeof(unsigned), cudaMemcpyDeviceToHost));
      std::swap(frontier, next);
    }
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(nv);
  NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), level, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  // The serial BFS: levels are unique whatever order a round claims in.
  std::vector<unsigned> ref(nv, UNSEEN), cur{source}, nxt;
  ref[source] = 0;
  for (unsigned l = 1; !cur.empty(); ++l, cur.swap(nxt)) {
    nxt.clear();
    for (unsigned v : cur)
      for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
        if (ref[g.targets[e]] == UNSEEN) ref[g.targets[e]] = l, nxt.push_back(g.targets[e]);
  }
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("frontier_cdp: %u vertices, %u edges, %u rounds, median %.3f ms%s\n", nv, g.edges(), rounds,
              graph::median(times), out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
