// Held-out case (bench/mapping/heldout3.tsv): k-core peeling with dynamic
// parallelism (the degree-decrement step of GPU k-core decomposition, written
// as a worklist of the vertices peeled this round): every vertex on the
// round's list launches a child grid over its neighbours, each child thread
// takes one off its neighbour's remaining degree with atomicSub, and the one
// that takes it below k puts the neighbour on the next round's list. Rounds
// run until no vertex is peeled; the result is the round each vertex was
// peeled in (0: in the k-core). The graph is made undirected (each edge both
// ways, no repeats, no self-loops); k is one and a half times the nominal
// --degree (about three quarters of the undirected graph's mean degree).
// Written for issue 22's third held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 kcore_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef KC_BLOCK
#define KC_BLOCK 64
#endif

__global__ void drop_degrees(const unsigned *adj, unsigned first, unsigned deg, unsigned *left, unsigned k,
                             unsigned *next_list, unsigned *next_size) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned w = adj[first + j];
    if (atomicSub(&left[w], 1u) == k) next_list[atomicAdd(next_size, 1u)] = w;
  }
}

__global__ void peel_round(const unsigned *row, const unsigned *adj, unsigned *left, unsigned k, const unsigned *list,
                           unsigned list_size, unsigned *peeled, unsigned round, unsigned *next_list,
                           unsigned *next_size) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < list_size) {
    unsigned v = list[i];
    peeled[v] = round;
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      drop_degrees<<<(deg + KC_BLOCK - 1) / KC_BLOCK, KC_BLOCK>>>(adj, first, deg, left, k, next_list, next_size);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "kcore_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, k = 3 * opt.degree / 2;
  // Undirected: every edge both ways, sorted, no repeats, no self-loops.
  {
    std::vector<std::vector<uint32_t>> nb(nv);
    for (unsigned u = 0; u < nv; ++u)
      for (unsigned e = g.offsets[u]; e < g.offsets[u + 1]; ++e)
        if (g.targets[e] != u) nb[u].push_back(g.targets[e]), nb[g.targets[e]].push_back(u);
    g.offsets.assign(1, 0);
    g.targets.clear();
    for (unsigned u = 0; u < nv; ++u) {
      std::sort(nb[u].begin(), nb[u].end());
      nb[u].erase(std::unique(nb[u].begin(), nb[u].end()), nb[u].end());
      g.targets.insert(g.targets.end(), nb[u].begin(), nb[u].end());
      g.offsets.push_back(uint32_t(g.targets.size()));
    }
  }
  std::vector<unsigned> degree(nv), first_list;
  for (unsigned v = 0; v < nv; ++v) {
    degree[v] = g.offsets[v + 1] - g.offsets[v];
    if (degree[v] < k) first_list.push_back(v);
  }
  // Every vertex is peeled at most once, so a list holds at most nv.
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *left, *peeled, *list, *next_list, *next_size;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (g.targets.size() + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&left, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&peeled, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&list, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&next_list, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&next_size, sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), g.targets.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  unsigned rounds = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemcpy(left, degree.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
    NESTOR_CUDA_CHECK(cudaMemset(peeled, 0, nv * sizeof(unsigned)));
    unsigned size = unsigned(first_list.size());
    if (size) NESTOR_CUDA_CHECK(cudaMemcpy(list, first_list.data(), size * sizeof(unsigned), cudaMemcpyHostToDevice));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    for (rounds = 0; size > 0; ++rounds) {
      NESTOR_CUDA_CHECK(cudaMemset(next_size, 0, sizeof(unsigned)));
      peel_round<<<(size + 127) / 128, 128>>>(row, adj, left, k, list, size, peeled, rounds + 1, next_list,
                                              next_size);
      NESTOR_CUDA_CHECK(cudaGetLastError());
      NESTOR_CUDA_CHECK(cudaMemcpy(&size, next_size, sizeof(unsigned), cudaMemcpyDeviceToHost));
      std::swap(list, next_list);
    }
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(nv);
  NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), peeled, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  // The serial rounds: a vertex joins round r + 1's list when a round-r
  // removal takes its remaining degree from k to k - 1 (whatever the order
  // within the round, the same vertices cross).
  std::vector<unsigned> ref(nv, 0), rest(degree), cur(first_list), next;
  for (unsigned r = 1; !cur.empty(); ++r, cur.swap(next)) {
    next.clear();
    for (unsigned v : cur) {
      ref[v] = r;
      for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
        if (rest[g.targets[e]]-- == k) next.push_back(g.targets[e]);
    }
  }
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("kcore_cdp: %u vertices, k %u, %u rounds, median %.3f ms%s\n", nv, k, rounds, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
