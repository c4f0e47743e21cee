// Held-out case (bench/mapping/heldout12.tsv): the scatter step of a CSR
// transpose (building the in-edge lists a pull-style traversal needs from the
// out-edge lists, as Gunrock-style frameworks do when a graph is loaded), with
// dynamic parallelism: every vertex launches a child grid over its out-edges,
// and child thread j claims a slot in the target's in-edge row with atomicAdd
// on the target's fill counter and writes the source vertex there (the row
// offsets come from a host prefix sum of the in-degrees). The order within a
// row depends on the schedule, so the host sorts every row before comparing.
// Integer, exact. Written for issue 22's twelfth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 transpose_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef TR_BLOCK
#define TR_BLOCK 128
#endif

__global__ void place_reverse(const unsigned *adj, const unsigned *in_row, unsigned first, unsigned deg, unsigned v,
                              unsigned *fill, unsigned *in_adj) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    unsigned slot = atomicAdd(&fill[u], 1u);
    in_adj[in_row[u] + slot] = v;
  }
}

__global__ void transpose_scatter(const unsigned *row, const unsigned *adj, const unsigned *in_row, unsigned *fill,
                                  unsigned *in_adj, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      place_reverse<<<(deg + TR_BLOCK - 1) / TR_BLOCK, TR_BLOCK>>>(adj, in_row, first, deg, v, fill, in_adj);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "transpose_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  std::vector<unsigned> in_row(nv + 1, 0u);
  for (unsigned e = 0; e < ne; ++e) ++in_row[g.targets[e] + 1];
  for (unsigned v = 0; v < nv; ++v) in_row[v + 1] += in_row[v];
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *din_row, *fill, *in_adj;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&din_row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&fill, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&in_adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(din_row, in_row.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(fill, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaMemset(in_adj, 0xFF, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    transpose_scatter<<<(nv + 127) / 128, 128>>>(row, adj, din_row, fill, in_adj, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(ne), ref(ne), cursor(in_row.begin(), in_row.end() - 1);
  if (ne) NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), in_adj, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned v = 0; v < nv; ++v)  // sources in increasing order: each in-row comes out sorted
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[cursor[g.targets[e]]++] = v;
  for (unsigned u = 0; u < nv; ++u) std::sort(got.begin() + in_row[u], got.begin() + in_row[u + 1]);
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("transpose_cdp: %u vertices, %u edges, median %.3f ms%s\n", nv, ne, graph::median(times),
              got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
