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
#include <nestor/delayed_launches.cuh>

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

// ns_child with its thread identity as parameters (dpar-opt-launch): run by the parent thread
// or by ns_child_nestor_dpar for delayed launches.
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

// The child of dpar-opt ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): one launch per
// parent block; block k runs the block's delayed launch k, its threads striding over the child threads.
__global__ void ns_child_nestor_dpar(nestor::tmpl::launch_batch<ns_child_nestor_launch> nestor_batch) {
  nestor::tmpl::run_launch_batch(nestor_batch, [](const ns_child_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    ns_child_nestor_thread(a.targets, a.first, a.degree, a.sum, t, b, bd, gd);
  });
}

// The body of ns_parent for dpar-opt-launch: a large launch is held in nestor_held, which
// ns_parent's block launches after every thread has left this body.
__device__ __forceinline__ void ns_parent_nestor_body(const unsigned* offsets, const unsigned* targets, unsigned n, unsigned long long* sums, unsigned long long* launches, unsigned* launch_errors, nestor::tmpl::held_launch<ns_child_nestor_launch> &nestor_held) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    unsigned first = offsets[v];
    unsigned degree = offsets[v + 1] - first;
    if (degree > 0) {
      {
        // dpar-opt, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): a launch of fewer than 32 threads
        // runs in this thread; a larger one is held, and this block makes one device launch for all of them
        // after the parent body.
        const dim3 nestor_grid((degree + NS_CHILD_BLOCK - 1) / NS_CHILD_BLOCK), nestor_block(NS_CHILD_BLOCK);
        atomicAdd(launches, 1ull);
        ns_child_nestor_launch nestor_item;
        nestor_item.targets = targets;
        nestor_item.first = first;
        nestor_item.degree = degree;
        nestor_item.sum = &sums[v];
        nestor_item.nestor_grid = nestor_grid;
        nestor_item.nestor_block = nestor_block;
        if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 32ull ||
             (unsigned long long)(degree) < 32ull) ||
            !nestor_held.hold(nestor_item))
          nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
              [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
            ns_child_nestor_thread(targets, first, degree, &sums[v], nestor_t, nestor_b, nestor_bd, nestor_gd);
          });
      }
    }
  }
}

__global__ void ns_parent(const unsigned* offsets, const unsigned* targets, unsigned n, unsigned long long* sums,
                          unsigned long long* launches, unsigned* launch_errors) {
  // dpar-opt, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): the body runs launches of ns_child
  // below 32 threads in their thread and holds larger ones; then thread 0 makes one device launch of
  // ns_child_nestor_dpar for all of them (CDP2: the parent never waits; the child grid completes before
  // the parent grid, as the original children did). Without -rdc the block runs them itself.
  nestor::tmpl::held_launch<ns_child_nestor_launch> nestor_held;
  ns_parent_nestor_body(offsets, targets, n, sums, launches, launch_errors, nestor_held);
  nestor::tmpl::dpar_opt_launches(nestor_held, [](const ns_child_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    ns_child_nestor_thread(a.targets, a.first, a.degree, a.sum, t, b, bd, gd);
  },
  [](const nestor::tmpl::launch_batch<ns_child_nestor_launch> &nestor_batch) {
#if defined(__CUDACC_RDC__) // without -rdc the block runs the held launches itself
    ns_child_nestor_dpar<<<nestor_batch.count, nestor::tmpl::kBatchThreads>>>(nestor_batch);
#endif
  });
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
    ns_parent<<<(n + 255) / 256, 256>>>(d_offsets, d_targets, n, d_sums, d_launches, d_errors);
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
