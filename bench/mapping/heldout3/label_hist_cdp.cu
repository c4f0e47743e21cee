// Held-out case (bench/mapping/heldout3.tsv): a per-vertex histogram of its
// neighbours' labels (the counting step of community detection by label
// propagation and of neighbourhood-feature extraction) with dynamic
// parallelism: each vertex launches a child grid over its out-neighbours whose
// threads add one to the vertex's bin of the neighbour's label. One pass,
// small children (a load and an atomic per thread); eight labels.
// Written for issue 22's third held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 label_hist_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef HIST_BLOCK
#define HIST_BLOCK 64
#endif
#define NLABELS 8

__global__ void count_labels(const unsigned *adj, unsigned first, unsigned deg, const unsigned *label,
                             unsigned *bins) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < deg) atomicAdd(&bins[label[adj[first + k]]], 1u);
}

__global__ void label_histogram(const unsigned *row, const unsigned *adj, const unsigned *label, unsigned *hist,
                                unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      count_labels<<<(deg + HIST_BLOCK - 1) / HIST_BLOCK, HIST_BLOCK>>>(adj, first, deg, label,
                                                                        hist + (size_t)v * NLABELS);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "label_hist_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices;
  // Labels from the seeded generator, so they are the same on every run.
  graph::rng r(opt.seed + 17);
  std::vector<unsigned> labels(nv);
  for (unsigned &l : labels) l = r.below(NLABELS);
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *label, *hist;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (g.edges() + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&label, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&hist, size_t(nv) * NLABELS * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(label, labels.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(hist, 0, size_t(nv) * NLABELS * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    label_histogram<<<(nv + 255) / 256, 256>>>(row, adj, label, hist, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(size_t(nv) * NLABELS);
  NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), hist, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::vector<unsigned> ref(out.size(), 0);
  for (unsigned v = 0; v < nv; ++v)
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ++ref[size_t(v) * NLABELS + labels[g.targets[e]]];
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("label_hist_cdp: %u vertices, median %.3f ms%s\n", nv, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
