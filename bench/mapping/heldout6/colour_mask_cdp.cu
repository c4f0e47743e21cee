// Held-out case (bench/mapping/heldout6.tsv): the forbidden-colour masks of a
// speculative greedy graph colouring with dynamic parallelism (the conflict
// pass of Gebremedhin-Manne-style colouring codes, written in the manner of
// Li/Wu/Becchi's nested vertex programs): every vertex launches a child grid
// over its out-edges, and each child thread sets the vertex's colour bit in
// the target's 32-bit mask with atomicOr. The result is every vertex's mask
// of the colours its in-neighbours hold; integer atomics, exact in any order.
// Written for issue 22's sixth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 colour_mask_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef CMASK_BLOCK
#define CMASK_BLOCK 64
#endif

__global__ void mark_forbidden(const unsigned *adj, unsigned first, unsigned deg, unsigned bit, unsigned *mask) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) atomicOr(&mask[adj[first + j]], bit);
}

__global__ void forbid_colours(const unsigned *row, const unsigned *adj, const unsigned *colour, unsigned *mask,
                               unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      mark_forbidden<<<(deg + CMASK_BLOCK - 1) / CMASK_BLOCK, CMASK_BLOCK>>>(adj, first, deg, 1u << (colour[v] & 31u),
                                                                             mask);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "colour_mask_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  // A tentative colouring: every vertex's colour (0..31), drawn with the graph's rng.
  std::vector<unsigned> colour(nv);
  graph::rng r(opt.seed + 671);
  for (unsigned v = 0; v < nv; ++v) colour[v] = r.below(32);
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *dcolour, *mask;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dcolour, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&mask, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dcolour, colour.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(mask, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    forbid_colours<<<(nv + 127) / 128, 128>>>(row, adj, dcolour, mask, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(nv), ref(nv, 0);
  NESTOR_CUDA_CHECK(cudaMemcpy(out.data(), mask, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned v = 0; v < nv; ++v)
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[g.targets[e]] |= 1u << (colour[v] & 31u);
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("colour_mask_cdp: %u vertices, %u edges, median %.3f ms%s\n", nv, ne, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
