// Neighbour sum with dynamic parallelism, the naive CDP form that Nestor's
// threshold / coarsen / aggregate rewrites take as input: one parent thread
// per vertex launches one child grid over the vertex's CSR neighbour range.
// The child grid is 1-D, sized with the ceiling division (N + b - 1) / b
// written inline in the launch (thesis Fig. 3.2 form (b)).
//
// sums[v] = sum over out-neighbours u of value(u), in 64-bit integers, so the
// result does not depend on the order in which children run.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 neighbour_sum.cu -lcudadevrt
#include <cstdio>
#include <vector>

#include "graph.h"
#include <nestor/promote.cuh>

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

// ns_child with its thread identity as parameters (dbuf-global-launch): run by the parent thread
// or by ns_child_nestor_drain for delayed launches.
__device__ __forceinline__ void ns_child_nestor_thread(const unsigned* targets, unsigned first, unsigned degree, unsigned long long* sum, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < degree) atomicAdd(sum, vertex_value(targets[first + i]));
}

// A delayed launch of ns_child: its arguments and configuration.
struct ns_child_nestor_launch {
  const unsigned* targets;
  unsigned first;
  unsigned degree;
  unsigned long long* sum;
  dim3 nestor_grid, nestor_block;
};

// The pass over delayed launches ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, dbuf-global): block-mapped,
// one block per launch striding over its child threads.
__global__ void ns_child_nestor_drain(nestor::tmpl::launch_queue<ns_child_nestor_launch> nestor_lq, bool nestor_block_mapped) {
  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, [](const ns_child_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    ns_child_nestor_thread(a.targets, a.first, a.degree, a.sum, t, b, bd, gd);
  });
}

__global__ void ns_parent(const unsigned* offsets, const unsigned* targets, unsigned n, unsigned long long* sums,
                          unsigned long long* launches, unsigned* launch_errors, nestor::tmpl::launch_queues<ns_child_nestor_launch> nestor_lq = {}) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    unsigned first = offsets[v];
    unsigned degree = offsets[v + 1] - first;
    if (degree > 0) {
      {
        // dbuf-global, lb_threshold 128 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: a launch of
        // fewer than 128 threads runs in this thread; a larger one is delayed to ns_child_nestor_drain,
        // which runs after this grid (CDP2 gives no earlier guarantee either).
        const dim3 nestor_grid((degree + NS_CHILD_BLOCK - 1) / NS_CHILD_BLOCK), nestor_block(NS_CHILD_BLOCK);
        atomicAdd(launches, 1ull);
        ns_child_nestor_launch nestor_item;
        nestor_item.targets = targets;
        nestor_item.first = first;
        nestor_item.degree = degree;
        nestor_item.sum = &sums[v];
        nestor_item.nestor_grid = nestor_grid;
        nestor_item.nestor_block = nestor_block;
        if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 128ull ||
             (unsigned long long)(degree) < 128ull) ||
            !nestor::tmpl::push_launch(nestor_lq.large, nestor_item))
          nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
              [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
            ns_child_nestor_thread(targets, first, degree, &sums[v], nestor_t, nestor_b, nestor_bd, nestor_gd);
          });
      }
    }
  }
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

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  unsigned long long launches = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    CUDA_CHECK(cudaMemset(d_sums, 0, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d_launches, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaEventRecord(start));
    nestor::tmpl::launch_promoted<ns_child_nestor_launch>((n + 255) / 256, 256, false,
        [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queues<ns_child_nestor_launch> nestor_lq) {
          ns_parent<<<nestor_g, nestor_b, 0>>>(d_offsets, d_targets, n, d_sums, d_launches, d_errors, nestor_lq);
        },
        [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queue<ns_child_nestor_launch> nestor_q, bool nestor_block_mapped) {
          ns_child_nestor_drain<<<nestor_g, nestor_b>>>(nestor_q, nestor_block_mapped);
        });
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
    if (rep == 0) CUDA_CHECK(cudaMemcpy(&launches, d_launches, sizeof launches, cudaMemcpyDeviceToHost));
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
