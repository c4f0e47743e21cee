// Held-out case (bench/mapping/heldout.tsv): Bellman-Ford single-source
// shortest paths with dynamic parallelism (the relaxation shape of the
// Li/Wu/Becchi study's SSSP and of KLAP's SSSP): each vertex whose distance
// changed in the last round launches a child grid that relaxes its out-edges
// with atomicMin. Held-out: no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 sssp_cdp.cu -lcudadevrt
#include <climits>
#include <cstdio>
#include <vector>

#include "graph.h"

#define RELAX_BLOCK 32

#define CHECK(expr)                                                                                    \
  do {                                                                                                 \
    cudaError_t e_ = (expr);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

__global__ void relax_edges(const unsigned *dst, const unsigned *wt, unsigned base, unsigned deg, unsigned du,
                            unsigned *dist, unsigned *touched) {
  unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < deg) {
    unsigned w = dst[base + e];
    unsigned nd = du + wt[base + e];
    if (nd < atomicMin(&dist[w], nd)) touched[w] = 1;
  }
}

__global__ void relax_round(const unsigned *off, const unsigned *dst, const unsigned *wt, unsigned *dist,
                            const unsigned *active, unsigned *touched, unsigned nv) {
  unsigned u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u < nv && active[u]) {
    unsigned base = off[u];
    unsigned deg = off[u + 1] - base;
    if (deg > 0)
      relax_edges<<<(deg + RELAX_BLOCK - 1) / RELAX_BLOCK, RELAX_BLOCK>>>(dst, wt, base, deg, dist[u], dist, touched);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "sssp_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices;
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *off, *dst, *wt, *dist, *active, *touched;
  CHECK(cudaMalloc(&off, (nv + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&dst, (g.edges() + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&wt, (g.edges() + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&dist, nv * sizeof(unsigned)));
  CHECK(cudaMalloc(&active, nv * sizeof(unsigned)));
  CHECK(cudaMalloc(&touched, nv * sizeof(unsigned)));
  CHECK(cudaMemcpy(off, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dst, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(wt, g.weights.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<unsigned> d0(nv, UINT_MAX), a0(nv, 0);
  d0[0] = 0;
  a0[0] = 1;
  std::vector<double> times;
  std::vector<unsigned> flags(nv);
  for (int rep = 0; rep < opt.reps; ++rep) {
    CHECK(cudaMemcpy(dist, d0.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(active, a0.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    CHECK(cudaEventRecord(t0));
    for (unsigned round = 0; round < nv; ++round) {
      CHECK(cudaMemset(touched, 0, nv * sizeof(unsigned)));
      relax_round<<<(nv + 255) / 256, 256>>>(off, dst, wt, dist, active, touched, nv);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(flags.data(), touched, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
      bool any = false;
      for (unsigned f : flags) any |= f != 0;
      if (!any) break;
      std::swap(active, touched);
    }
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(nv);
  CHECK(cudaMemcpy(out.data(), dist, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("sssp_cdp: %u vertices, median %.3f ms\n", nv, graph::median(times));
  return 0;
}
