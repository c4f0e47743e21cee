// Held-out case (bench/mapping/heldout2.tsv): a per-vertex neighbour count with
// dynamic parallelism (the two-hop degree of link-prediction and
// clustering-coefficient passes): each vertex launches a child grid over its
// out-neighbours whose threads add each neighbour's out-degree into the
// vertex's count. One pass, small children (a thread per edge, a few loads).
// Held-out: no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 two_hop_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"

#ifndef HOP_BLOCK
#define HOP_BLOCK 64
#endif

#define CHECK(expr)                                                                                    \
  do {                                                                                                 \
    cudaError_t e_ = (expr);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

__global__ void add_hop_degrees(const unsigned *row, const unsigned *adj, unsigned first, unsigned deg,
                                unsigned *reach, unsigned u) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < deg) {
    unsigned w = adj[first + k];
    atomicAdd(&reach[u], row[w + 1] - row[w]);
  }
}

__global__ void two_hop(const unsigned *row, const unsigned *adj, unsigned *reach, unsigned nv) {
  unsigned u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u < nv) {
    unsigned first = row[u];
    unsigned deg = row[u + 1] - first;
    if (deg > 0)
      add_hop_degrees<<<(deg + HOP_BLOCK - 1) / HOP_BLOCK, HOP_BLOCK>>>(row, adj, first, deg, reach, u);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "two_hop_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices;
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *reach;
  CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&adj, (g.edges() + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&reach, nv * sizeof(unsigned)));
  CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(adj, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    CHECK(cudaMemset(reach, 0, nv * sizeof(unsigned)));
    CHECK(cudaEventRecord(t0));
    two_hop<<<(nv + 255) / 256, 256>>>(row, adj, reach, nv);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(nv);
  CHECK(cudaMemcpy(out.data(), reach, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::vector<unsigned> ref(nv, 0);
  for (unsigned u = 0; u < nv; ++u)
    for (unsigned e = g.offsets[u]; e < g.offsets[u + 1]; ++e) ref[u] += g.degree(g.targets[e]);
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("two_hop_cdp: %u vertices, median %.3f ms%s\n", nv, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
