// Held-out case (bench/mapping/heldout2.tsv): a triangle-count-style step with
// dynamic parallelism (the edge-iterator form of GPU triangle counting): each
// vertex u launches a child grid over its out-neighbours; the child thread of
// neighbour w intersects u's and w's sorted lists (walking the shorter one,
// binary-searching the longer) and adds the common neighbours it finds to u's
// count. Children do real work (a list each), larger on the power-law graph.
// Held-out: no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 triangles_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"

#ifndef TRI_BLOCK
#define TRI_BLOCK 128
#endif

#define CHECK(expr)                                                                                    \
  do {                                                                                                 \
    cudaError_t e_ = (expr);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

__global__ void count_common(const unsigned *row, const unsigned *adj, unsigned ufirst, unsigned udeg,
                             unsigned *common, unsigned u) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < udeg) {
    unsigned w = adj[ufirst + k];
    unsigned wfirst = row[w];
    unsigned wdeg = row[w + 1] - wfirst;
    // Walk the shorter list and search the longer one (the degree-ordered
    // intersection: a hub's list is walked only against another hub).
    unsigned walk = wdeg <= udeg ? wfirst : ufirst, walk_len = wdeg <= udeg ? wdeg : udeg;
    unsigned look = wdeg <= udeg ? ufirst : wfirst, look_len = wdeg <= udeg ? udeg : wdeg;
    unsigned found = 0;
    for (unsigned j = walk; j < walk + walk_len; ++j) {
      unsigned x = adj[j];
      unsigned lo = look, hi = look + look_len;
      while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (adj[mid] < x) lo = mid + 1;
        else hi = mid;
      }
      found += lo < look + look_len && adj[lo] == x;
    }
    if (found) atomicAdd(&common[u], found);
  }
}

__global__ void triangles(const unsigned *row, const unsigned *adj, unsigned *common, unsigned nv) {
  unsigned u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u < nv) {
    unsigned first = row[u];
    unsigned deg = row[u + 1] - first;
    if (deg > 0) count_common<<<(deg + TRI_BLOCK - 1) / TRI_BLOCK, TRI_BLOCK>>>(row, adj, first, deg, common, u);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "triangles_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices;
  // Sorted adjacency lists without repeated edges: the child's binary search
  // needs them sorted, and |N(u) & N(w)| is the same walked from either side
  // only when no neighbour is listed twice.
  {
    std::vector<uint32_t> offsets(1, 0), targets;
    for (unsigned v = 0; v < nv; ++v) {
      std::vector<uint32_t> n(g.targets.begin() + g.offsets[v], g.targets.begin() + g.offsets[v + 1]);
      std::sort(n.begin(), n.end());
      n.erase(std::unique(n.begin(), n.end()), n.end());
      targets.insert(targets.end(), n.begin(), n.end());
      offsets.push_back(uint32_t(targets.size()));
    }
    g.offsets = std::move(offsets);
    g.targets = std::move(targets);
  }
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *common;
  CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&adj, (g.edges() + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&common, nv * sizeof(unsigned)));
  CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(adj, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    CHECK(cudaMemset(common, 0, nv * sizeof(unsigned)));
    CHECK(cudaEventRecord(t0));
    triangles<<<(nv + 127) / 128, 128>>>(row, adj, common, nv);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(nv);
  CHECK(cudaMemcpy(out.data(), common, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::vector<unsigned> ref(nv, 0);
  for (unsigned u = 0; u < nv; ++u) {
    auto ub = g.targets.begin() + g.offsets[u], ue = g.targets.begin() + g.offsets[u + 1];
    for (auto w = ub; w != ue; ++w)
      for (unsigned j = g.offsets[*w]; j < g.offsets[*w + 1]; ++j) ref[u] += std::binary_search(ub, ue, g.targets[j]);
  }
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("triangles_cdp: %u vertices, median %.3f ms%s\n", nv, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
