// Held-out case (bench/mapping/heldout13.tsv): the parent-claiming step of one
// level of a breadth-first search that builds a BFS tree (Graph500's kernel 2
// output, as Gunrock-style advance operators write it), with dynamic
// parallelism: only the vertices of the current frontier (about three in ten
// here, the hub among them) launch, each a child grid over its out-edges, and
// child thread j proposes its parent as the target's BFS parent with
// atomicMax, when the target is not yet visited (the largest frontier id
// wins, so the tree is the same in any order; ids are stored plus one, 0
// meaning none). Integer, exact. Written for issue 22's thirteenth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 bfs_parent_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef BP_BLOCK
#define BP_BLOCK 128
#endif

__global__ void propose_parent(const unsigned *adj, const unsigned char *visited, unsigned first, unsigned deg,
                               unsigned v, unsigned *parent1) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    if (!visited[u]) atomicMax(&parent1[u], v + 1);
  }
}

__global__ void claim_bfs_parents(const unsigned *row, const unsigned *adj, const unsigned char *frontier,
                                  const unsigned char *visited, unsigned *parent1, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv && frontier[v]) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) propose_parent<<<(deg + BP_BLOCK - 1) / BP_BLOCK, BP_BLOCK>>>(adj, visited, first, deg, v, parent1);
  }
}

// The level's state: frontier (about 30%, the hub always) and visited (the
// frontier and about 30% more) vertices, from a hash of the id.
static unsigned bp_hash(unsigned v) {
  unsigned h = v * 0x9E3779B9u + 1371u;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bfs_parent_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  std::vector<unsigned char> frontier(nv), visited(nv);
  for (unsigned v = 0; v < nv; ++v) {
    const unsigned h = bp_hash(v) % 100u;
    frontier[v] = v == 0 || h < 30u;
    visited[v] = frontier[v] || h >= 70u;
  }
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *parent1;
  unsigned char *dfront, *dvis;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&parent1, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dfront, nv));
  NESTOR_CUDA_CHECK(cudaMalloc(&dvis, nv));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dfront, frontier.data(), nv, cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dvis, visited.data(), nv, cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(parent1, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    claim_bfs_parents<<<(nv + 127) / 128, 128>>>(row, adj, dfront, dvis, parent1, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(nv), ref(nv, 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), parent1, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0, claimed = 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (!frontier[v]) continue;
    ++launching;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (!visited[g.targets[e]]) ref[g.targets[e]] = std::max(ref[g.targets[e]], v + 1);
  }
  for (unsigned v = 0; v < nv; ++v) claimed += ref[v] != 0;
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("bfs_parent_cdp: %u vertices, %u edges, %u in the frontier, %u claimed, median %.3f ms%s\n", nv, ne,
              launching, claimed, graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
