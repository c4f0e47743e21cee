// Held-out case (bench/mapping/heldout6.tsv): the span of every edge under a
// vertex ordering with dynamic parallelism (what a bandwidth- or profile-
// reducing reordering such as RCM is judged by: |pos[v] - pos[u]| for every
// edge v -> u), written Gunrock-advance style with one child grid per vertex:
// each child thread gathers its target's position and writes the edge's span
// in CSR order (no atomics). Integer, exact. Written for issue 22's sixth
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 edge_span_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef SPAN_BLOCK
#define SPAN_BLOCK 32
#endif

__global__ void span_of_edges(const unsigned *adj, const unsigned *pos, unsigned first, unsigned deg, unsigned at,
                              unsigned *span) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned p = pos[adj[first + j]];
    span[first + j] = p > at ? p - at : at - p;
  }
}

__global__ void edge_spans(const unsigned *row, const unsigned *adj, const unsigned *pos, unsigned *span, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) span_of_edges<<<(deg + SPAN_BLOCK - 1) / SPAN_BLOCK, SPAN_BLOCK>>>(adj, pos, first, deg, pos[v], span);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "edge_span_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  // The ordering judged: a random permutation (Fisher-Yates, the graph's rng).
  std::vector<unsigned> pos(nv);
  for (unsigned v = 0; v < nv; ++v) pos[v] = v;
  graph::rng r(opt.seed + 681);
  for (unsigned v = nv; v > 1; --v) std::swap(pos[v - 1], pos[r.below(v)]);
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *dpos, *span;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dpos, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&span, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dpos, pos.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(span, 0, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    edge_spans<<<(nv + 127) / 128, 128>>>(row, adj, dpos, span, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(ne), ref(ne, 0);
  if (ne) NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), span, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned v = 0; v < nv; ++v)
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const unsigned p = pos[g.targets[e]], at = pos[v];
      ref[e] = p > at ? p - at : at - p;
    }
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("edge_span_cdp: %u vertices, %u edges, median %.3f ms%s\n", nv, ne, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
