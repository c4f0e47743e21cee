// Held-out case (bench/mapping/heldout7.tsv): the relabelling of a graph's
// adjacency under a vertex permutation with dynamic parallelism (what a
// locality reordering such as RCM, degree sorting or Rabbit order does once
// the new order is known, written as Gunrock's or KLAP's per-vertex child
// grids would): every vertex v launches a child grid over its out-edges, and
// child thread j writes the new id of its target, perm[adj[first + j]], into
// v's list at its new place (offsets of the permuted CSR, computed on the
// host). A gather and a scatter, no atomics; integer, exact. Written for issue
// 22's seventh held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 relabel_cdp.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef RELABEL_BLOCK
#define RELABEL_BLOCK 64
#endif

__global__ void copy_relabelled(const unsigned *adj, const unsigned *perm, unsigned first, unsigned deg, unsigned dest,
                                unsigned *out) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) out[dest + j] = perm[adj[first + j]];
}

__global__ void relabel_lists(const unsigned *row, const unsigned *adj, const unsigned *perm, const unsigned *new_row,
                              unsigned *out, unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0)
      copy_relabelled<<<(deg + RELABEL_BLOCK - 1) / RELABEL_BLOCK, RELABEL_BLOCK>>>(adj, perm, first, deg,
                                                                                 new_row[perm[v]], out);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "relabel_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  // The new order: a random permutation (Fisher-Yates, the graph's rng), and
  // the permuted CSR's offsets (vertex perm[v] keeps v's degree).
  std::vector<unsigned> perm(nv), new_row(nv + 1, 0);
  for (unsigned v = 0; v < nv; ++v) perm[v] = v;
  graph::rng r(opt.seed + 771);
  for (unsigned v = nv; v > 1; --v) std::swap(perm[v - 1], perm[r.below(v)]);
  for (unsigned v = 0; v < nv; ++v) new_row[perm[v] + 1] = g.degree(v);
  for (unsigned v = 0; v < nv; ++v) new_row[v + 1] += new_row[v];
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *dperm, *dnew_row, *out;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dperm, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&dnew_row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&out, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dperm, perm.data(), nv * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(dnew_row, new_row.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(out, 0, (ne + 1) * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    relabel_lists<<<(nv + 127) / 128, 128>>>(row, adj, dperm, dnew_row, out, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(ne), ref(ne, 0);
  if (ne) NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), out, ne * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned v = 0; v < nv; ++v)
    for (unsigned e = g.offsets[v], k = new_row[perm[v]]; e < g.offsets[v + 1]; ++e, ++k) ref[k] = perm[g.targets[e]];
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("relabel_cdp: %u vertices, %u edges, median %.3f ms%s\n", nv, ne, graph::median(times),
              got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
