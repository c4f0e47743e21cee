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
#include <nestor/promote.cuh>

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

// bfs_child with its thread identity as parameters (dbuf-global-launch): run by the parent thread
// or by bfs_child_nestor_drain for delayed launches.
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

// The pass over delayed launches ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, dbuf-global): block-mapped,
// one block per launch striding over its child threads.
__global__ void bfs_child_nestor_drain(nestor::tmpl::launch_queue<bfs_child_nestor_launch> nestor_lq, bool nestor_block_mapped) {
  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, [](const bfs_child_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    bfs_child_nestor_thread(a.levels, a.targets, a.curr, a.nbr_off, a.num_nbr, a.changed, t, b, bd, gd);
  });
}

__global__ void bfs_parent(unsigned* levels, const unsigned* offsets, const unsigned* targets, unsigned n,
                           unsigned curr, int* changed, unsigned long long* launches, unsigned* launch_errors, nestor::tmpl::launch_queues<bfs_child_nestor_launch> nestor_lq = {}) {
  unsigned gid = blockDim.x * blockIdx.x + threadIdx.x;
  if (gid < n) {
    if (levels[gid] == curr) {
      unsigned nbr_off = offsets[gid];
      unsigned num_nbr = offsets[gid + 1] - nbr_off;
      // (num_nbr - 1) / b + 1 wraps for num_nbr == 0: zero-degree vertices must not launch.
      if (num_nbr > 0) {
        {
          // dbuf-global, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: a launch of
          // fewer than 32 threads runs in this thread; a larger one is delayed to bfs_child_nestor_drain,
          // which runs after this grid (CDP2 gives no earlier guarantee either).
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
          if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 32ull ||
               (unsigned long long)(num_nbr) < 32ull) ||
              !nestor::tmpl::push_launch(nestor_lq.large, nestor_item))
            nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
                [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
              bfs_child_nestor_thread(levels, targets, curr, nbr_off, num_nbr, changed, nestor_t, nestor_b, nestor_bd, nestor_gd);
            });
        }
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
      nestor::tmpl::launch_promoted<bfs_child_nestor_launch>((n + 255) / 256, 256, false,
          [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queues<bfs_child_nestor_launch> nestor_lq) {
            bfs_parent<<<nestor_g, nestor_b, 0>>>(d_levels, d_offsets, d_targets, n, curr, d_changed, d_launches, d_errors, nestor_lq);
          },
          [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queue<bfs_child_nestor_launch> nestor_q, bool nestor_block_mapped) {
            bfs_child_nestor_drain<<<nestor_g, nestor_b>>>(nestor_q, nestor_block_mapped);
          });
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
