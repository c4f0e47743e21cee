// Held-out case (bench/mapping/heldout20.tsv): the degree product of every
// edge (the deg(u) x deg(v) term a degree-assortativity coefficient, a
// configuration-model null or a preferential-attachment link predictor
// starts from), with dynamic parallelism: every vertex with out-edges
// launches a child grid over them, passing its out-degree by value, and
// child thread j reads the target's out-degree from the row offsets and
// PLAIN-writes the product into the edge's OWN slot. Unsigned, exact (each
// slot is written once). Written for issue 22's twentieth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 degree_product_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef DP_BLOCK
#define DP_BLOCK 128
#endif

__global__ void write_degree_product(const unsigned *row, const unsigned *adj, unsigned first, unsigned deg,
                                     unsigned *prod) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    prod[first + j] = deg * (row[u + 1] - row[u]);
  }
}

__global__ void edge_degree_products(const unsigned *row, const unsigned *adj, unsigned *prod, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) write_degree_product<<<(deg + DP_BLOCK - 1) / DP_BLOCK, DP_BLOCK>>>(row, adj, first, deg, prod);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "degree_product_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *prod;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&prod, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(prod, 0, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    edge_degree_products<<<(nv + 127) / 128, 128>>>(row, adj, prod, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(ne), ref(ne, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), prod, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    launching += g.degree(v) > 0;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[e] = g.degree(v) * g.degree(g.targets[e]);
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("degree_product_cdp: %u vertices, %u edges, %u launching, median %.3f ms%s\n", nv, ne, launching,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
