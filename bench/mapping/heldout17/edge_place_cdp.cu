// Held-out case (bench/mapping/heldout17.tsv): every directed edge's machine
// under a 2-D grid edge placement (the vertex-cut partitioning of
// PowerGraph-style distributed graph engines: the machines form an R x C
// grid, and edge v -> u goes to the machine in v's row and u's column, both
// chosen by a hash of the end's id, so that every vertex is replicated on at
// most R + C - 1 machines), with dynamic parallelism: every vertex with
// out-edges launches a child grid over them, passing its id and the grid's
// shape by value, and child thread j PLAIN-writes the machine number
// (hash(v) % R) x C + hash(u) % C into the edge's OWN slot. Integer, exact
// (each slot is written once). Written for issue 22's seventeenth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 edge_place_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef EP_BLOCK
#define EP_BLOCK 128
#endif

__host__ __device__ inline unsigned place_hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

__global__ void place_out_edges(const unsigned *adj, unsigned first, unsigned deg, unsigned v, unsigned rows,
                                unsigned cols, unsigned *machine) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    machine[first + j] = place_hash(v) % rows * cols + place_hash(u) % cols;
  }
}

__global__ void grid_edge_placement(const unsigned *row, const unsigned *adj, unsigned *machine, unsigned nv,
                                    unsigned rows, unsigned cols) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      place_out_edges<<<(deg + EP_BLOCK - 1) / EP_BLOCK, EP_BLOCK>>>(adj, first, deg, v, rows, cols, machine);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "edge_place_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  const unsigned rows = 8, cols = 16;  // 128 machines
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *machine;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&machine, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(machine, 0, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    grid_edge_placement<<<(nv + 127) / 128, 128>>>(row, adj, machine, nv, rows, cols);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(ne), ref(ne, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), machine, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    launching += g.degree(v) > 0;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      ref[e] = place_hash(v) % rows * cols + place_hash(g.targets[e]) % cols;
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("edge_place_cdp: %u vertices, %u edges, %u launching, median %.3f ms%s\n", nv, ne, launching,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
