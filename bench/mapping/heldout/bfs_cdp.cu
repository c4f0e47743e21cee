// Held-out case (bench/mapping/heldout.tsv): level-synchronous BFS with
// dynamic parallelism in the style of KLAP's BFS application: each vertex of
// the current level launches one child grid over its adjacency list, and the
// host advances level by level. Written for issue 22's held-out set; no
// weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 bfs_cdp.cu -lcudadevrt
#include <climits>
#include <cstdio>
#include <vector>

#include "graph.h"

#define VISIT_BLOCK 64

#define CHECK(expr)                                                                                    \
  do {                                                                                                 \
    cudaError_t e_ = (expr);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

__global__ void visit_neighbours(const unsigned *adj, unsigned first, unsigned count, unsigned *depth,
                                 unsigned next, int *grew) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) {
    unsigned w = adj[first + k];
    if (depth[w] == UINT_MAX) {
      depth[w] = next;  // every writer in this level writes the same value
      *grew = 1;
    }
  }
}

__global__ void expand_level(const unsigned *row, const unsigned *adj, unsigned *depth, unsigned nv,
                             unsigned level, int *grew) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nv || depth[v] != level) return;
  unsigned first = row[v];
  unsigned count = row[v + 1] - first;
  if (count > 0)
    visit_neighbours<<<(count + VISIT_BLOCK - 1) / VISIT_BLOCK, VISIT_BLOCK>>>(adj, first, count, depth, level + 1,
                                                                              grew);
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bfs_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices;
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *depth;
  int *grew;
  CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&adj, (g.edges() + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&depth, nv * sizeof(unsigned)));
  CHECK(cudaMalloc(&grew, sizeof(int)));
  CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(adj, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<unsigned> h(nv, UINT_MAX);
  h[0] = 0;
  std::vector<double> times;
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    CHECK(cudaMemcpy(depth, h.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaEventRecord(t0));
    int more = 1;
    for (unsigned level = 0; more; ++level) {
      CHECK(cudaMemset(grew, 0, sizeof(int)));
      expand_level<<<(nv + 127) / 128, 128>>>(row, adj, depth, nv, level, grew);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(&more, grew, sizeof(int), cudaMemcpyDeviceToHost));
    }
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(nv);
  CHECK(cudaMemcpy(out.data(), depth, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("bfs_cdp: %u vertices, median %.3f ms\n", nv, graph::median(times));
  return 0;
}
