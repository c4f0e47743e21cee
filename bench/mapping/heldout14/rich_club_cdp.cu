// Held-out case (bench/mapping/heldout14.tsv): the rich-club links of every
// rich vertex (how many of its out-neighbours are themselves rich, a vertex
// being rich when its out-degree is at least RC_MIN: the numerator of the
// rich-club coefficient network scientists compute per degree threshold),
// with dynamic parallelism: only the rich vertices launch, each a child grid
// over its out-edges, and child thread j adds 1 into the PARENT's slot
// (atomicAdd) when the target's out-degree, read from the row offsets, is at
// least RC_MIN. Poor vertices keep 0. Integer, exact. Written for issue 22's
// fourteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 rich_club_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef RC_BLOCK
#define RC_BLOCK 128
#endif

#ifndef RC_MIN
#define RC_MIN 16
#endif

__global__ void count_rich_links(const unsigned *row, const unsigned *adj, unsigned first, unsigned deg, unsigned v,
                                 unsigned *links) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    if (row[u + 1] - row[u] >= RC_MIN) atomicAdd(&links[v], 1u);
  }
}

__global__ void rich_club_links(const unsigned *row, const unsigned *adj, unsigned *links, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg >= RC_MIN) count_rich_links<<<(deg + RC_BLOCK - 1) / RC_BLOCK, RC_BLOCK>>>(row, adj, first, deg, v, links);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "rich_club_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *links;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&links, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(links, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    rich_club_links<<<(nv + 127) / 128, 128>>>(row, adj, links, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), links, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned rich = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (g.degree(v) < RC_MIN) continue;
    ++rich;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) ref[v] += g.degree(g.targets[e]) >= RC_MIN;
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("rich_club_cdp: %u vertices, %u edges, %u rich, median %.3f ms%s\n", nv, ne, rich, graph::median(times),
              got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
