// Held-out case (bench/mapping/heldout2.tsv): label propagation (the min-label
// connected-components step of LonestarGPU-style worklist code) with dynamic
// parallelism: every vertex on this round's worklist launches a child grid
// over its out-edges that lowers each neighbour's label with atomicMin and
// puts the neighbours it lowered on the next worklist (once per round: a
// round stamp). The labels reach the same fixpoint (the smallest id that
// reaches each vertex) whatever the order; the program checks it serially.
// Held-out: no weight of the mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 cc_cdp.cu -lcudadevrt
#include <cstdio>
#include <numeric>
#include <vector>

#include "graph.h"

#ifndef CC_BLOCK
#define CC_BLOCK 32
#endif

#define CHECK(expr)                                                                                    \
  do {                                                                                                 \
    cudaError_t e_ = (expr);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

__global__ void lower_labels(const unsigned *adj, unsigned first, unsigned deg, unsigned mine, unsigned *label,
                             unsigned *listed, unsigned round, unsigned *next_list, unsigned *next_size) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < deg) {
    unsigned w = adj[first + k];
    if (mine < atomicMin(&label[w], mine) && atomicExch(&listed[w], round) != round)
      next_list[atomicAdd(next_size, 1u)] = w;
  }
}

__global__ void cc_round(const unsigned *row, const unsigned *adj, unsigned *label, const unsigned *list,
                         unsigned list_size, unsigned *listed, unsigned round, unsigned *next_list,
                         unsigned *next_size) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < list_size) {
    unsigned v = list[i];
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      lower_labels<<<(deg + CC_BLOCK - 1) / CC_BLOCK, CC_BLOCK>>>(adj, first, deg, label[v], label, listed, round,
                                                                   next_list, next_size);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "cc_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices;
  // A vertex is listed at most once per round (its stamp), so a list holds at most nv.
  const size_t list_cap = nv;
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *label, *listed, *list, *next_list, *next_size;
  CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&adj, (g.edges() + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&label, nv * sizeof(unsigned)));
  CHECK(cudaMalloc(&listed, nv * sizeof(unsigned)));
  CHECK(cudaMalloc(&list, list_cap * sizeof(unsigned)));
  CHECK(cudaMalloc(&next_list, list_cap * sizeof(unsigned)));
  CHECK(cudaMalloc(&next_size, sizeof(unsigned)));
  CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(adj, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<unsigned> ids(nv);
  std::iota(ids.begin(), ids.end(), 0u);
  std::vector<double> times;
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  unsigned rounds = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    CHECK(cudaMemcpy(label, ids.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(list, ids.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(listed, 0xff, nv * sizeof(unsigned)));
    unsigned size = nv;
    CHECK(cudaEventRecord(t0));
    for (rounds = 0; size > 0; ++rounds) {
      CHECK(cudaMemset(next_size, 0, sizeof(unsigned)));
      cc_round<<<(size + 127) / 128, 128>>>(row, adj, label, list, size, listed, rounds, next_list, next_size);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(&size, next_size, sizeof(unsigned), cudaMemcpyDeviceToHost));
      std::swap(list, next_list);
    }
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> out(nv);
  CHECK(cudaMemcpy(out.data(), label, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  // The serial fixpoint: every vertex's label is the smallest id that reaches it.
  std::vector<unsigned> ref(ids);
  for (bool changed = true; changed;) {
    changed = false;
    for (unsigned v = 0; v < nv; ++v)
      for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
        if (ref[v] < ref[g.targets[e]]) ref[g.targets[e]] = ref[v], changed = true;
  }
  if (!opt.out.empty()) graph::write_result(opt.out, out);
  std::printf("cc_cdp: %u vertices, %u rounds, median %.3f ms%s\n", nv, rounds, graph::median(times),
              out == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return out == ref ? 0 : 1;
}
