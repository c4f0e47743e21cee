// Held-out case (bench/mapping/heldout11.tsv): one level of the forward
// (path-counting) sweep of Brandes' betweenness centrality, with dynamic
// parallelism (the step GPU betweenness codes run once per BFS level and per
// source): every vertex of the current level launches a child grid over its
// out-edges, and child thread j, when the edge's target lies on the next
// level, adds the parent's shortest-path count to the target's with
// atomicAdd. Path counts are kept modulo 2^32 (unsigned arithmetic), exact in
// any order. The level is the BFS level from vertex 0 with the most vertices.
// Written for issue 22's eleventh held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 path_count_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef SIGMA_BLOCK
#define SIGMA_BLOCK 128
#endif

__global__ void add_path_counts(const unsigned *adj, const int *depth, unsigned first, unsigned deg, int next_level,
                                unsigned paths, unsigned *sigma) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    if (depth[u] == next_level) atomicAdd(&sigma[u], paths);
  }
}

__global__ void count_shortest_paths(const unsigned *row, const unsigned *adj, const int *depth, int level,
                                     unsigned *sigma, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nv || depth[v] != level) return;
  unsigned first = row[v];
  unsigned deg = row[v + 1] - first;
  if (deg > 0)
    add_path_counts<<<(deg + SIGMA_BLOCK - 1) / SIGMA_BLOCK, SIGMA_BLOCK>>>(adj, depth, first, deg, level + 1,
                                                                          sigma[v], sigma);
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "path_count_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  // Host BFS from vertex 0 with path counts (mod 2^32), up to the level
  // with the most vertices; the kernel runs that level's step.
  std::vector<int> depth(nv, -1);
  std::vector<unsigned> sigma(nv, 0u), frontier{0u}, next;
  depth[0] = 0;
  sigma[0] = 1u;
  std::vector<unsigned> level_size{1u};
  for (int d = 0; !frontier.empty(); ++d) {
    next.clear();
    for (unsigned v : frontier)
      for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
        const unsigned u = g.targets[e];
        if (depth[u] < 0) {
          depth[u] = d + 1;
          next.push_back(u);
        }
      }
    if (!next.empty()) level_size.push_back(unsigned(next.size()));
    frontier.swap(next);
  }
  int level = 0;
  for (size_t d = 0; d < level_size.size(); ++d)
    if (level_size[d] > level_size[size_t(level)]) level = int(d);
  for (unsigned v = 0; v < nv; ++v) sigma[v] = depth[v] == 0 ? 1u : 0u;
  for (int d = 0; d < level; ++d)  // counts up to `level`, in level order
    for (unsigned v = 0; v < nv; ++v)
      if (depth[v] == d)
        for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
          if (depth[g.targets[e]] == d + 1) sigma[g.targets[e]] += sigma[v];
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *sig;
  int *dep;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dep, nv * sizeof(int)));
  NESTOR_CUDA_CHECK(cudaMalloc(&sig, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dep, depth.data(), nv * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemcpy(sig, sigma.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    count_shortest_paths<<<(nv + 127) / 128, 128>>>(row, adj, dep, level, sig, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref = sigma;
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), sig, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (depth[v] != level) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (depth[g.targets[e]] == level + 1) ref[g.targets[e]] += sigma[v];
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("path_count_cdp: %u vertices, %u edges, level %d of %u vertices, median %.3f ms%s\n", nv, ne, level,
              launching, graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
