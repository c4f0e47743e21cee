// Held-out case (bench/mapping/heldout15.tsv): the slack of every out-edge of
// the reached vertices under a set of tentative distances (dist[v] + w -
// dist[u], the reduced cost a shortest-path checker or a Dijkstra-to-
// Bellman-Ford switch inspects: a negative slack is an edge still to relax,
// a zero one lies on a shortest-path DAG), with dynamic parallelism: only
// the reached vertices (distance below INF, about seven in ten, chosen by a
// hash of the id, the hub among them) with out-edges launch a child grid over
// them, passing their distance by value, and child thread j PLAIN-writes the
// slack into the edge's own slot (INF_SLACK when the target is unreached).
// The edges of unreached vertices keep 0xFFFFFFFF. Integer, exact (each slot
// written at most once). Written for issue 22's fifteenth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 edge_slack_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef ES_BLOCK
#define ES_BLOCK 128
#endif

#define DIST_INF 0x7FFFFFFF
#define INF_SLACK 0x40000000

__global__ void write_edge_slack(const unsigned *adj, const unsigned *weight, const int *dist, unsigned first,
                                 unsigned deg, int dv, int *slack) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    int du = dist[adj[first + j]];
    slack[first + j] = du == DIST_INF ? INF_SLACK : dv + int(weight[first + j]) - du;
  }
}

__global__ void tight_edge_slack(const unsigned *row, const unsigned *adj, const unsigned *weight, const int *dist,
                                 int *slack, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv && dist[v] != DIST_INF) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      write_edge_slack<<<(deg + ES_BLOCK - 1) / ES_BLOCK, ES_BLOCK>>>(adj, weight, dist, first, deg, dist[v], slack);
  }
}

// Tentative distances: unreached (INF) for about three in ten vertices, else
// 0 to 4095, from a hash of the id (the hub, vertex 0, the source: 0).
static int dist_of(unsigned v) {
  unsigned h = v * 0x9E3779B9u + 1581u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  if (v == 0) return 0;
  return h % 10u < 3u ? DIST_INF : int((h >> 8) & 4095u);
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "edge_slack_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  std::vector<int> dist(nv);
  for (unsigned v = 0; v < nv; ++v) dist[v] = dist_of(v);
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *weight;
  int *ddist, *slack;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&weight, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&ddist, nv * sizeof(int)));
  NESTOR_CUDA_CHECK(cudaMalloc(&slack, (ne + 1) * sizeof(int)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(weight, g.weights.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(ddist, dist.data(), nv * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(slack, 0xFF, (ne + 1) * sizeof(int)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    tight_edge_slack<<<(nv + 127) / 128, 128>>>(row, adj, weight, ddist, slack, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<int> got(ne), ref(ne, -1);
  if (ne) NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), slack, ne * sizeof(int), cudaMemcpyDeviceToHost));
  unsigned launching = 0, negative = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (dist[v] == DIST_INF || g.degree(v) == 0) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const int du = dist[g.targets[e]];
      ref[e] = du == DIST_INF ? INF_SLACK : dist[v] + int(g.weights[e]) - du;
      negative += ref[e] < 0;
    }
  }
  // The result file holds the slacks as unsigned words (graph::write_result).
  std::vector<unsigned> words(got.begin(), got.end());
  if (!opt.out.empty()) graph::write_result(opt.out, words);
  std::printf("edge_slack_cdp: %u vertices, %u edges, %u launching, %u negative slacks, median %.3f ms%s\n", nv, ne,
              launching, negative, graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
