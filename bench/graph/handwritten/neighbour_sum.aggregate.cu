// Neighbour sum after the aggregate rewrite (thesis §2.4, KLAP), written BY
// HAND against runtime/include/nestor/dp.cuh as a reference for the bench and
// the equivalence tests until the rewriter's goldens exist. The granularity is
// chosen with -DNESTOR_AGG_GRANULARITY=1 (warp), 2 (block) or 3 (grid: the host
// launches one aggregated child after the parent grid). Requests the pool
// refuses (full: see NESTOR_AGG_POOL_CAPACITY) take the original launch path.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I runtime/include neighbour_sum.aggregate.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include <nestor/dp.cuh>

#ifndef NESTOR_AGG_GRANULARITY
#define NESTOR_AGG_GRANULARITY 1
#endif

#include "../../../examples/graph/graph.h"

#define NS_CHILD_BLOCK 128

#define CUDA_CHECK(expr)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (expr);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

__device__ unsigned long long vertex_value(unsigned u) { return (u * 2654435761u) % 1000u + 1u; }

__global__ void ns_child(const unsigned* targets, unsigned first, unsigned degree, unsigned long long* sum) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < degree) atomicAdd(sum, vertex_value(targets[first + i]));
}

struct ns_child_args {
  const unsigned* targets;
  unsigned first;
  unsigned degree;
  unsigned long long* sum;
};

__global__ void ns_child__agg(nestor::dp::agg_batch<ns_child_args> batch) {
  const nestor::dp::agg_child<ns_child_args> c = nestor::dp::agg_child_locate(batch);
  if (c.active) {
    const ns_child_args& a = *c.args;
    unsigned i = c.blockIdx.x * c.blockDim.x + c.threadIdx.x;
    if (i < a.degree) atomicAdd(a.sum, vertex_value(a.targets[a.first + i]));
  }
}

__global__ void ns_parent(const unsigned* offsets, const unsigned* targets, unsigned n, unsigned long long* sums,
                          unsigned long long* launches, unsigned* launch_errors,
                          nestor::dp::agg_pool<ns_child_args> __pool) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
#if NESTOR_AGG_GRANULARITY == 2
  // Block granularity is called by every thread of the block: hoisted out of the conditionals.
  unsigned first = 0, degree = 0;
  if (v < n) {
    first = offsets[v];
    degree = offsets[v + 1] - first;
  }
  const bool __want = degree > 0;
  const dim3 __grid((degree + NS_CHILD_BLOCK - 1) / NS_CHILD_BLOCK), __block(NS_CHILD_BLOCK);
  if (!nestor::dp::aggregate_block(__pool, ns_child__agg, __want, __grid, __block,
                                   ns_child_args{targets, first, degree, __want ? &sums[v] : nullptr})) {
    atomicAdd(launches, 1ull);
    ns_child<<<__grid, __block>>>(targets, first, degree, &sums[v]);
    if (cudaGetLastError() != cudaSuccess) atomicAdd(launch_errors, 1u);
  }
#else
  if (v < n) {
    unsigned first = offsets[v];
    unsigned degree = offsets[v + 1] - first;
    if (degree > 0) {
      const dim3 __grid((degree + NS_CHILD_BLOCK - 1) / NS_CHILD_BLOCK), __block(NS_CHILD_BLOCK);
      const ns_child_args __args{targets, first, degree, &sums[v]};
#if NESTOR_AGG_GRANULARITY == 3
      const bool __done = nestor::dp::aggregate_grid(__pool, __grid, __block, __args);
#else
      const bool __done = nestor::dp::aggregate_warp(__pool, ns_child__agg, __grid, __block, __args);
#endif
      if (!__done) {
        atomicAdd(launches, 1ull);
        ns_child<<<__grid, __block>>>(targets, first, degree, &sums[v]);
        if (cudaGetLastError() != cudaSuccess) atomicAdd(launch_errors, 1u);
      }
    }
  }
#endif
}

int main(int argc, char** argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "neighbour_sum: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;
  // Every parent thread may have a launch pending at once.
  CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, n + 4096));

  unsigned *d_offsets, *d_targets, *d_errors;
  unsigned long long *d_sums, *d_launches;
  CUDA_CHECK(cudaMalloc(&d_offsets, (n + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_targets, (g.edges() + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_sums, n * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&d_launches, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&d_errors, sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(d_offsets, g.offsets.data(), (n + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_targets, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_errors, 0, sizeof(unsigned)));

  nestor::dp::agg_pool_owner<ns_child_args> __pool;
  CUDA_CHECK(__pool.create(NESTOR_AGG_POOL_CAPACITY));
  nestor::dp::agg_grid_plan __plan;

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  unsigned long long launches = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    CUDA_CHECK(cudaMemset(d_sums, 0, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d_launches, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaEventRecord(start));
    CUDA_CHECK(nestor::dp::agg_pool_reset(__pool.pool()));
    ns_parent<<<(n + 255) / 256, 256>>>(d_offsets, d_targets, n, d_sums, d_launches, d_errors, __pool.pool());
    CUDA_CHECK(cudaGetLastError());
#if NESTOR_AGG_GRANULARITY == 3
    CUDA_CHECK(nestor::dp::agg_grid_read_plan(__pool.pool(), &__plan));
    CUDA_CHECK(nestor::dp::agg_grid_launch(__pool.pool(), __plan, ns_child__agg));
#endif
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
    if (rep == 0) {
      // Launches made: the fallbacks counted in the parent plus the aggregated ones.
      CUDA_CHECK(cudaMemcpy(&launches, d_launches, sizeof launches, cudaMemcpyDeviceToHost));
      CUDA_CHECK(nestor::dp::agg_grid_read_plan(__pool.pool(), &__plan));
      launches += __plan.device_launches + (__plan.empty() ? 0 : NESTOR_AGG_GRANULARITY == 3);
      std::printf("aggregate: granularity=%d pool_capacity=%u refused=%u\n", NESTOR_AGG_GRANULARITY,
                  __pool.pool().capacity, __plan.refused);
    }
  }
  unsigned errors = 0;
  CUDA_CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
  if (errors) {
    std::fprintf(stderr, "neighbour_sum: %u device-side launches failed\n", errors);
    return 1;
  }
  std::vector<unsigned long long> sums(n);
  CUDA_CHECK(cudaMemcpy(sums.data(), d_sums, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  try {
    if (!opt.out.empty()) graph::write_result(opt.out, sums);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "neighbour_sum: %s\n", e.what());
    return 2;
  }
  graph::print_result_line("neighbour_sum", opt, g, graph::median(times), launches);
  return 0;
}
