// Held-out case (bench/mapping/heldout4.tsv): the row sums of a sparse
// matrix-matrix product C = A x A, row by row (Gustavson's row-wise SpGEMM,
// the expansion pass that sizes or checksums C's rows), with dynamic
// parallelism: every row i launches a child grid over its non-zeros a_ij, and
// each child thread walks row j of A, adding a_ij x a_jk for every k into row
// i's 64-bit total. A is the graph's adjacency with its integer edge weights,
// so the totals are exact whatever the order of the atomic adds.
// Written for issue 22's fourth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 spgemm_rowsum_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef GEMM_BLOCK
#define GEMM_BLOCK 64
#endif

__global__ void expand_row(const unsigned *row, const unsigned *col, const unsigned *wt, unsigned first, unsigned len,
                           unsigned long long *total) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < len) {
    unsigned j = col[first + k];
    unsigned long long a = wt[first + k], s = 0;
    for (unsigned e = row[j]; e < row[j + 1]; ++e) s += a * wt[e];
    atomicAdd(total, s);
  }
}

__global__ void spgemm_rowsums(const unsigned *row, const unsigned *col, const unsigned *wt, unsigned long long *total,
                               unsigned nrows) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nrows) {
    unsigned first = row[i];
    unsigned len = row[i + 1] - first;
    if (len > 0) expand_row<<<(len + GEMM_BLOCK - 1) / GEMM_BLOCK, GEMM_BLOCK>>>(row, col, wt, first, len, total + i);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "spgemm_rowsum_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *col, *wt;
  unsigned long long *total;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&col, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&wt, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&total, nv * sizeof(unsigned long long)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(col, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(wt, g.weights.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(total, 0, nv * sizeof(unsigned long long)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    spgemm_rowsums<<<(nv + 63) / 64, 64>>>(row, col, wt, total, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned long long> out(nv), ref(nv, 0);
  NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), total, nv * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::vector<unsigned long long> wsum(nv, 0);
  for (unsigned j = 0; j < nv; ++j)
    for (unsigned e = g.offsets[j]; e < g.offsets[j + 1]; ++e) wsum[j] += g.weights[e];
  for (unsigned i = 0; i < nv; ++i)
    for (unsigned e = g.offsets[i]; e < g.offsets[i + 1]; ++e) ref[i] += g.weights[e] * wsum[g.targets[e]];
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("spgemm_rowsum_cdp: %u rows, %u non-zeros, median %.3f ms%s\n", nv, ne, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
