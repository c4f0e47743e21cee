// Held-out case (bench/mapping/heldout12.tsv): the light-edge phase of one
// bucket of delta-stepping shortest paths (Meyer and Sanders; the phase GPU
// SSSP codes repeat per bucket), with dynamic parallelism: only the vertices
// whose tentative distance lies in the current bucket [B delta, (B+1) delta)
// launch (about one in four here), each a child grid over its out-edges, and
// child thread j relaxes the edge when it is light (weight <= delta) with
// atomicMin into the target's next distance. Distances are read from the
// round's snapshot and written to a copy, so the result is exact in any
// order. Written for issue 22's twelfth held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 delta_step_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef DS_BLOCK
#define DS_BLOCK 128
#endif

#define DS_DELTA 25u
#define DS_INF 0xFFFFFFFFu

__global__ void relax_light_edges(const unsigned *adj, const unsigned *wt, unsigned first, unsigned deg, unsigned dv,
                                  unsigned *dist_next) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned w = wt[first + j];
    if (w <= DS_DELTA) atomicMin(&dist_next[adj[first + j]], dv + w);
  }
}

__global__ void relax_light_bucket(const unsigned *row, const unsigned *adj, const unsigned *wt, const unsigned *dist,
                                   unsigned *dist_next, unsigned bucket, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nv) return;
  unsigned dv = dist[v];
  if (dv == DS_INF || dv / DS_DELTA != bucket) return;
  unsigned first = row[v];
  unsigned deg = row[v + 1] - first;
  if (deg > 0) relax_light_edges<<<(deg + DS_BLOCK - 1) / DS_BLOCK, DS_BLOCK>>>(adj, wt, first, deg, dv, dist_next);
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "delta_step_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  // A state part-way through: tentative distances 0 to 99 (four buckets of
  // 25) for about nine vertices in ten, the rest unreached; bucket 1 runs.
  // Vertex 0 (the hub) is the source, at distance 0 (bucket 0: it does not
  // launch).
  const unsigned bucket = 1;
  std::vector<unsigned> dist(nv);
  for (unsigned v = 0; v < nv; ++v) {
    unsigned h = v * 0x9E3779B9u + 1271u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    dist[v] = v == 0 ? 0u : (h % 10u == 0u ? DS_INF : (h >> 8) % 100u);
  }
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *wt, *ddist, *next;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&wt, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&ddist, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&next, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(wt, g.weights.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(ddist, dist.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemcpy(next, dist.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    relax_light_bucket<<<(nv + 127) / 128, 128>>>(row, adj, wt, ddist, next, bucket, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref = dist;
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), next, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0, improved = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (dist[v] == DS_INF || dist[v] / DS_DELTA != bucket) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (g.weights[e] <= DS_DELTA) ref[g.targets[e]] = std::min(ref[g.targets[e]], dist[v] + g.weights[e]);
  }
  for (unsigned v = 0; v < nv; ++v) improved += ref[v] != dist[v];
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("delta_step_cdp: %u vertices, %u edges, %u in bucket %u, %u improved, median %.3f ms%s\n", nv, ne,
              launching, bucket, improved, graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
