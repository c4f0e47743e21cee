// Held-out case (bench/mapping/heldout14.tsv): every vertex's digest of its
// in-neighbour set, as one cell of an invertible Bloom lookup table (a count
// and an XOR of hashed keys, what set-reconciliation protocols exchange to
// find which edges two replicas of a graph disagree on), with dynamic
// parallelism: every vertex with out-edges launches a child grid over them,
// and child thread j adds 1 to the TARGET's count (atomicAdd) and XORs a
// 32-bit hash of the parent's id into the target's key sum (atomicXor).
// Integer, exact (both operations commute). Written for issue 22's
// fourteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 in_digest_cdp.cu -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

#include "graph.h"
#include "nestor/gpu_test.cuh"

#ifndef ID_BLOCK
#define ID_BLOCK 128
#endif

__host__ __device__ __forceinline__ unsigned key_hash(unsigned v) {
  unsigned h = v * 0x9E3779B9u + 1471u;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  return h;
}

__global__ void add_to_cells(const unsigned *adj, unsigned first, unsigned deg, unsigned key, unsigned *count,
                             unsigned *keyx) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) {
    unsigned u = adj[first + j];
    atomicAdd(&count[u], 1u);
    atomicXor(&keyx[u], key);
  }
}

__global__ void in_neighbour_digest(const unsigned *row, const unsigned *adj, unsigned *count, unsigned *keyx,
                                    unsigned nv) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    unsigned first = row[v];
    unsigned deg = row[v + 1] - first;
    if (deg > 0) add_to_cells<<<(deg + ID_BLOCK - 1) / ID_BLOCK, ID_BLOCK>>>(adj, first, deg, key_hash(v), count, keyx);
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "in_digest_cdp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned nv = g.vertices, ne = g.edges();
  NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, nv + 4096));
  unsigned *row, *adj, *count, *keyx;
  NESTOR_CUDA_CHECK(cudaMalloc(&row, (nv + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&adj, (ne + 1) * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&count, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMalloc(&keyx, nv * sizeof(unsigned)));
  NESTOR_CUDA_CHECK(cudaMemcpy(row, g.offsets.data(), (nv + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(adj, g.targets.data(), ne * sizeof(unsigned), cudaMemcpyHostToDevice));
  std::vector<double> times;
  cudaEvent_t t0, t1;
  NESTOR_CUDA_CHECK(cudaEventCreate(&t0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&t1));
  for (int rep = 0; rep < opt.reps; ++rep) {
    NESTOR_CUDA_CHECK(cudaMemset(count, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaMemset(keyx, 0, nv * sizeof(unsigned)));
    NESTOR_CUDA_CHECK(cudaEventRecord(t0));
    in_neighbour_digest<<<(nv + 127) / 128, 128>>>(row, adj, count, keyx, nv);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventRecord(t1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
    times.push_back(ms);
  }
  std::vector<unsigned> got(2 * size_t(nv)), ref(2 * size_t(nv), 0u);
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data(), count, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  NESTOR_CUDA_CHECK(cudaMemcpy(got.data() + nv, keyx, nv * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned launching = 0;
  for (unsigned v = 0; v < nv; ++v) {
    launching += g.degree(v) > 0;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      ref[g.targets[e]] += 1u;
      ref[size_t(nv) + g.targets[e]] ^= key_hash(v);
    }
  }
  if (!opt.out.empty()) graph::write_result(opt.out, got);
  std::printf("in_digest_cdp: %u vertices, %u edges, %u launching, median %.3f ms%s\n", nv, ne, launching,
              graph::median(times), got == ref ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  return got == ref ? 0 : 1;
}
