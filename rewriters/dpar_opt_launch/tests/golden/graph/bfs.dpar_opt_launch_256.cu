// Breadth-first search with dynamic parallelism, the naive CDP form that
// Nestor's rewrites take as input (the thesis' Listing A.1): one parent thread
// per vertex of the current level launches one child grid over its CSR
// neighbour range, sized with (N - 1) / b + 1 (thesis Fig. 3.2 form (a)).
// The host iterates level by level: CDP2 (CUDA 12+) has no device-side
// cudaDeviceSynchronize, and the host's wait on each level is what orders them.
//
// levels[v] = BFS depth of v from vertex 0 (4294967295 when unreachable).
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 bfs.cu -lcudadevrt
#include <climits>
#include <cstdio>
#include <vector>

#include "graph.h"
#include <nestor/delayed_launches.cuh>

#define BFS_CHILD_BLOCK 32

#define CUDA_CHECK(expr)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (expr);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

__global__ void bfs_child(unsigned* levels, const unsigned* targets, unsigned curr, unsigned nbr_off,
                          unsigned num_nbr, int* changed) {
  unsigned gid = blockDim.x * blockIdx.x + threadIdx.x;
  if (gid < num_nbr) {
    unsigned v = targets[gid + nbr_off];
    if (levels[v] == UINT_MAX) {
      levels[v] = curr + 1;  // every writer of this level writes the same value
      *changed = 1;
    }
  }
}

// bfs_child with its thread identity as parameters (dpar-opt-launch): run by the parent thread
// or by bfs_child_nestor_dpar for delayed launches.
__device__ __forceinline__ void bfs_child_nestor_thread(unsigned* levels, const unsigned* targets, unsigned curr, unsigned nbr_off, unsigned num_nbr, int* changed, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  unsigned gid = blockDim.x * blockIdx.x + threadIdx.x;
  if (gid < num_nbr) {
    unsigned v = targets[gid + nbr_off];
    if (levels[v] == UINT_MAX) {
      levels[v] = curr + 1;  // every writer of this level writes the same value
      *changed = 1;
    }
  }
}

// A delayed launch of bfs_child: its arguments and configuration.
struct bfs_child_nestor_launch {
  unsigned* levels;
  const unsigned* targets;
  unsigned curr;
  unsigned nbr_off;
  unsigned num_nbr;
  int* changed;
  dim3 nestor_grid, nestor_block;
};

// The child of dpar-opt ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): one launch per
// parent block; block k runs the block's delayed launch k, its threads striding over the child threads.
__global__ void bfs_child_nestor_dpar(nestor::tmpl::launch_batch<bfs_child_nestor_launch> nestor_batch) {
  nestor::tmpl::run_launch_batch(nestor_batch, [](const bfs_child_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    bfs_child_nestor_thread(a.levels, a.targets, a.curr, a.nbr_off, a.num_nbr, a.changed, t, b, bd, gd);
  });
}

// The body of bfs_parent for dpar-opt-launch: a large launch is held in nestor_held, which
// bfs_parent's block launches after every thread has left this body.
__device__ __forceinline__ void bfs_parent_nestor_body(unsigned* levels, const unsigned* offsets, const unsigned* targets, unsigned n, unsigned curr, int* changed, unsigned long long* launches, unsigned* launch_errors, nestor::tmpl::held_launch<bfs_child_nestor_launch> &nestor_held) {
  unsigned gid = blockDim.x * blockIdx.x + threadIdx.x;
  if (gid < n) {
    if (levels[gid] == curr) {
      unsigned nbr_off = offsets[gid];
      unsigned num_nbr = offsets[gid + 1] - nbr_off;
      // (num_nbr - 1) / b + 1 wraps for num_nbr == 0: zero-degree vertices must not launch.
      if (num_nbr > 0) {
        {
          // dpar-opt, lb_threshold 256 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): a launch of fewer than 256 threads
          // runs in this thread; a larger one is held, and this block makes one device launch for all of them
          // after the parent body.
          const dim3 nestor_grid((num_nbr - 1) / BFS_CHILD_BLOCK + 1), nestor_block(BFS_CHILD_BLOCK);
          atomicAdd(launches, 1ull);
          bfs_child_nestor_launch nestor_item;
          nestor_item.levels = levels;
          nestor_item.targets = targets;
          nestor_item.curr = curr;
          nestor_item.nbr_off = nbr_off;
          nestor_item.num_nbr = num_nbr;
          nestor_item.changed = changed;
          nestor_item.nestor_grid = nestor_grid;
          nestor_item.nestor_block = nestor_block;
          if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 256ull ||
               (unsigned long long)(num_nbr) < 256ull) ||
              !nestor_held.hold(nestor_item))
            nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
                [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
              bfs_child_nestor_thread(levels, targets, curr, nbr_off, num_nbr, changed, nestor_t, nestor_b, nestor_bd, nestor_gd);
            });
        }
      }
    }
  }
}

__global__ void bfs_parent(unsigned* levels, const unsigned* offsets, const unsigned* targets, unsigned n,
                           unsigned curr, int* changed, unsigned long long* launches, unsigned* launch_errors) {
  // dpar-opt, lb_threshold 256 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): the body runs launches of bfs_child
  // below 256 threads in their thread and holds larger ones; then thread 0 makes one device launch of
  // bfs_child_nestor_dpar for all of them (CDP2: the parent never waits; the child grid completes before
  // the parent grid, as the original children did). Without -rdc the block runs them itself.
  nestor::tmpl::held_launch<bfs_child_nestor_launch> nestor_held;
  bfs_parent_nestor_body(levels, offsets, targets, n, curr, changed, launches, launch_errors, nestor_held);
  nestor::tmpl::dpar_opt_launches(nestor_held, [](const bfs_child_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    bfs_child_nestor_thread(a.levels, a.targets, a.curr, a.nbr_off, a.num_nbr, a.changed, t, b, bd, gd);
  },
  [](const nestor::tmpl::launch_batch<bfs_child_nestor_launch> &nestor_batch) {
#if defined(__CUDACC_RDC__) // without -rdc the block runs the held launches itself
    bfs_child_nestor_dpar<<<nestor_batch.count, nestor::tmpl::kBatchThreads>>>(nestor_batch);
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
    std::fprintf(stderr, "bfs: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;
  CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, n + 4096));

  unsigned *d_offsets, *d_targets, *d_levels, *d_errors;
  int* d_changed;
  unsigned long long* d_launches;
  CUDA_CHECK(cudaMalloc(&d_offsets, (n + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_targets, (g.edges() + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_levels, n * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_changed, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_launches, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMalloc(&d_errors, sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(d_offsets, g.offsets.data(), (n + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_targets, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_errors, 0, sizeof(unsigned)));

  std::vector<unsigned> levels(n, UINT_MAX);
  levels[0] = 0;  // source: vertex 0, the hub
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  unsigned long long launches = 0;
  unsigned depth = 0;
  for (int rep = 0; rep < opt.reps; ++rep) {
    CUDA_CHECK(cudaMemcpy(d_levels, levels.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_launches, 0, sizeof(unsigned long long)));
    CUDA_CHECK(cudaEventRecord(start));
    unsigned curr = 0;
    int changed = 1;
    while (changed) {
      CUDA_CHECK(cudaMemset(d_changed, 0, sizeof(int)));
      bfs_parent<<<(n + 255) / 256, 256>>>(d_levels, d_offsets, d_targets, n, curr, d_changed, d_launches, d_errors);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
      ++curr;
    }
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
    depth = curr;
    if (rep == 0) CUDA_CHECK(cudaMemcpy(&launches, d_launches, sizeof launches, cudaMemcpyDeviceToHost));
  }
  unsigned errors = 0;
  CUDA_CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
  if (errors) {
    std::fprintf(stderr, "bfs: %u device-side launches failed\n", errors);
    return 1;
  }
  CUDA_CHECK(cudaMemcpy(levels.data(), d_levels, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  try {
    if (!opt.out.empty()) graph::write_result(opt.out, levels);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bfs: %s\n", e.what());
    return 2;
  }
  std::printf("bfs: %u levels\n", depth);
  graph::print_result_line("bfs", opt, g, graph::median(times), launches);
  return 0;
}
