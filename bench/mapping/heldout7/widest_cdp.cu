// Held-out case (bench/mapping/heldout7.tsv): the widest two-hop continuation
// of every edge with dynamic parallelism (one relaxation round of a widest-
// path / maximum-bottleneck search, or the capacity check of a two-hop route
// in a network-flow heuristic, in KLAP's per-vertex child style): every
// vertex launches a child grid over its out-edges, and child thread j, for
// the edge v -> u, walks u's whole out-list for its widest edge and writes
// min(w(v, u), that width) (0 when u has no out-edge): a max-reduction loop in
// the child, trip deg(u) for the thread of an edge into u. Integer, exact, no
// atomics. Written for issue 22's seventh held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 widest_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef WIDE_BLOCK
#define WIDE_BLOCK 64
#endif

__global__ void bottleneck_via(const unsigned *row, const unsigned *adj, const unsigned *wt, unsigned first,
                               unsigned deg, unsigned *width) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j], m = 0;
    for (unsigned k = row[u]; k < row[u + 1]; ++k) m = max(m, wt[k]);
    width[first + j] = min(wt[first + j], m);
  }
}

__global__ void widest_two_hop(const unsigned *row, const unsigned *adj, const unsigned *wt, unsigned *width,
                               unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) bottleneck_via<<<(deg + WIDE_BLOCK - 1) / WIDE_BLOCK, WIDE_BLOCK>>>(row, adj, wt, first, deg, width);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "widest_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *wt, *width;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&wt, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&width, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(wt, g.weights.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(width, 0, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    widest_two_hop<<<(nv + 127) / 128, 128>>>(row, adj, wt, width, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(ne), ref(ne, 0), widest(nv, 0);
  if (ne) NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), width, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  // The serial reference: every vertex's widest out-edge once, then one min per edge.
  for (unsigned u = 0; u < nv; ++u)
    for (unsigned k = g.offsets[u]; k < g.offsets[u + 1]; ++k) widest[u] = std::max(widest[u], g.weights[k]);
  for (unsigned e = 0; e < ne; ++e) ref[e] = std::min(g.weights[e], widest[g.targets[e]]);
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("widest_cdp: %u vertices, %u edges, median %.3f ms%s\n", nv, ne, graph::median(times),
              got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
