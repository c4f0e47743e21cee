// Held-out case (bench/mapping/heldout19.tsv): every vertex's farthest
// neighbour id (the largest target id among its out-edges: the row extent a
// sparse-matrix partitioner or a graph-ordering quality metric such as the
// profile or bandwidth reads per row), with dynamic parallelism: every
// vertex with out-edges launches a child grid over them, passing its id by
// value, and child thread j raises the PARENT's slot to the edge's target
// with atomicMax. Unsigned, exact in any order. Written for issue 22's
// nineteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 far_target_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef FT_BLOCK
#define FT_BLOCK 128
#endif

__global__ void raise_far_target(const unsigned *adj, unsigned first, unsigned deg, unsigned v, unsigned *far) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) atomicMax(&far[v], adj[first + j]);
}

__global__ void farthest_target_id(const unsigned *row, const unsigned *adj, unsigned *far, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) raise_far_target<<<(deg + FT_BLOCK - 1) / FT_BLOCK, FT_BLOCK>>>(adj, first, deg, v, far);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "far_target_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *far;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&far, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(far, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    farthest_target_id<<<(nv + 127) / 128, 128>>>(row, adj, far, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), far, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    launching += g.degree(v) > 0;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      ref[v] = std::max(ref[v], g.targets[e]);
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("far_target_cdp: %u vertices, %u edges, %u launching, median %.3f ms%s\n", nv, ne, launching,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
