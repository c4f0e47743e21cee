// Held-out case (bench/mapping/heldout18.tsv): which vertices a hub points
// to (the hub-neighbourhood marking that degree-aware graph partitioners
// and hub-sorting reorderers do before they place vertices: a vertex a
// heavy vertex reaches is kept beside the hubs), with dynamic parallelism:
// only the vertices with at least HUB_MIN out-edges (the threshold passed by
// value) launch a child grid over them, and child thread j PLAIN-writes 1
// into the TARGET's slot (every writer of a slot writes the same value).
// Vertices no hub reaches keep 0. Integer, exact. Written for issue 22's
// eighteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 hub_adjacent_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef HA_BLOCK
#define HA_BLOCK 128
#endif

#ifndef HUB_MIN
#define HUB_MIN 48
#endif

__global__ void tag_hub_targets(const unsigned *adj, unsigned first, unsigned deg, unsigned *tag) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) tag[adj[first + j]] = 1u;
}

__global__ void flag_hub_adjacent(const unsigned *row, const unsigned *adj, unsigned *tag, unsigned nv,
                                  unsigned hub_min) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg >= hub_min) tag_hub_targets<<<(deg + HA_BLOCK - 1) / HA_BLOCK, HA_BLOCK>>>(adj, first, deg, tag);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "hub_adjacent_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *tag;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&tag, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(tag, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    flag_hub_adjacent<<<(nv + 127) / 128, 128>>>(row, adj, tag, nv, HUB_MIN);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), tag, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (g.degree(v) < HUB_MIN) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[g.targets[e]] = 1u;
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("hub_adjacent_cdp: %u vertices, %u edges, %u launching, median %.3f ms%s\n", nv, ne, launching,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
