// Held-out case (bench/mapping/heldout12.tsv): every vertex's internal edge
// weight in a community assignment (the k_i,in term of Louvain's modularity
// gain, computed once per pass before vertices move), with dynamic
// parallelism: every vertex launches a child grid over its out-edges, and
// child thread j, when the edge's target is in the vertex's own community
// (passed by value), adds the edge weight into the PARENT's slot with
// atomicAdd. 16 communities, blocks of 64 consecutive vertices hashed to one.
// Integer, exact in any order. Written for issue 22's twelfth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 comm_weight_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef CW_BLOCK
#define CW_BLOCK 128
#endif

__global__ void add_internal_weight(const unsigned *adj, const unsigned *wt, const unsigned short *comm,
                                    unsigned first, unsigned deg, unsigned short cv, unsigned v, unsigned *internal) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned e = first + j;
    if (comm[adj[e]] == cv) atomicAdd(&internal[v], wt[e]);
  }
}

__global__ void community_internal_weight(const unsigned *row, const unsigned *adj, const unsigned *wt,
                                          const unsigned short *comm, unsigned *internal, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nv) return;
  unsigned first = row[v];
  unsigned deg = row[v + 1] - first;
  if (deg > 0)
    add_internal_weight<<<(deg + CW_BLOCK - 1) / CW_BLOCK, CW_BLOCK>>>(adj, wt, comm, first, deg, comm[v], v,
                                                                      internal);
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "comm_weight_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  std::vector<unsigned short> comm(nv);
  for (unsigned v = 0; v < nv; ++v) {
    unsigned h = (v / 64u) * 0x27D4EB2Fu + 1261u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    comm[v] = (unsigned short)(h & 15u);
  }
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *wt, *internal;
  unsigned short *dcomm;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&wt, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dcomm, nv * sizeof(unsigned short)));
  NESTOR_CUDA_CHECK(cudaMalloc(&internal, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(wt, g.weights.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dcomm, comm.data(), nv * sizeof(unsigned short), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(internal, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    community_internal_weight<<<(nv + 127) / 128, 128>>>(row, adj, wt, dcomm, internal, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), internal, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long total = 0;
  for (unsigned v = 0; v < nv; ++v) {
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (comm[g.targets[e]] == comm[v]) ref[v] += g.weights[e];
    total += ref[v];
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("comm_weight_cdp: %u vertices, %u edges, internal weight %llu, median %.3f ms%s\n", nv, ne, total,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
