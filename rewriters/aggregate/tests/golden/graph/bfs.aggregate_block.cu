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
#include <nestor/dp.cuh>

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

// One launch of bfs_child, recorded for aggregation (Nestor aggregate rewrite).
struct bfs_child__agg_args {
  unsigned int *levels;
  const unsigned int *targets;
  unsigned int curr;
  unsigned int nbr_off;
  unsigned int num_nbr;
  int *changed;
};

// bfs_child for aggregated launches: each block finds the launch it belongs to; threads
// beyond that launch's block (the aggregated block is the largest) skip the body.
__global__ void bfs_child__agg(nestor::dp::agg_batch<bfs_child__agg_args> _batch) {
  const nestor::dp::agg_child<bfs_child__agg_args> _c = nestor::dp::agg_child_locate(_batch);
  if (_c.active) {
    auto levels = _c.args->levels;
    auto targets = _c.args->targets;
    auto curr = _c.args->curr;
    auto nbr_off = _c.args->nbr_off;
    auto num_nbr = _c.args->num_nbr;
    auto changed = _c.args->changed;
    {
      unsigned gid = _c.blockDim.x * _c.blockIdx.x + _c.threadIdx.x;
      if (gid < num_nbr) {
        unsigned v = targets[gid + nbr_off];
        if (levels[v] == UINT_MAX) {
          levels[v] = curr + 1;  // every writer of this level writes the same value
          *changed = 1;
        }
      }
    }
  }
}

// Launch records of bfs_child, reset by the host before every launch of bfs_parent.
__device__ nestor::dp::agg_pool<bfs_child__agg_args> bfs_child__agg_pool;
static nestor::dp::agg_pool<bfs_child__agg_args> bfs_child__agg_pool_host() {
  static nestor::dp::agg_pool_owner<bfs_child__agg_args> owner;
  if (!owner.pool().counters) {
    nestor::dp::agg_host_check(owner.create(), "bfs_child__agg_pool: allocation");
    nestor::dp::agg_host_check(cudaMemcpyToSymbol(bfs_child__agg_pool, &owner.pool(), sizeof(owner.pool())), "bfs_child__agg_pool: cudaMemcpyToSymbol");
  }
  return owner.pool();
}

__global__ void bfs_parent(unsigned* levels, const unsigned* offsets, const unsigned* targets, unsigned n,
                           unsigned curr, int* changed, unsigned long long* launches, unsigned* launch_errors) {
  // This thread's launch of bfs_child (Nestor aggregate rewrite, block granularity).
  bool _agg_bfs_child_want = false;
  dim3 _agg_bfs_child_grid, _agg_bfs_child_block;
  bfs_child__agg_args _agg_bfs_child_args{};
  unsigned gid = blockDim.x * blockIdx.x + threadIdx.x;
  if (gid < n) {
    if (levels[gid] == curr) {
      unsigned nbr_off = offsets[gid];
      unsigned num_nbr = offsets[gid + 1] - nbr_off;
      // (num_nbr - 1) / b + 1 wraps for num_nbr == 0: zero-degree vertices must not launch.
      if (num_nbr > 0) {
        {
          _agg_bfs_child_grid = dim3((num_nbr - 1) / BFS_CHILD_BLOCK + 1);
          _agg_bfs_child_block = dim3(BFS_CHILD_BLOCK);
          _agg_bfs_child_args.levels = levels;
          _agg_bfs_child_args.targets = targets;
          _agg_bfs_child_args.curr = curr;
          _agg_bfs_child_args.nbr_off = nbr_off;
          _agg_bfs_child_args.num_nbr = num_nbr;
          _agg_bfs_child_args.changed = changed;
          _agg_bfs_child_want = true;  // launched at the end of bfs_parent, aggregated per block
        }
      }
    }
  }
  // Every thread of the block gets here: one launch for the block's launches.
  if (!nestor::dp::aggregate_block(bfs_child__agg_pool, bfs_child__agg, _agg_bfs_child_want, _agg_bfs_child_grid, _agg_bfs_child_block, _agg_bfs_child_args)) {
    atomicAdd(launches, 1ull);
    bfs_child<<<_agg_bfs_child_grid, _agg_bfs_child_block>>>(_agg_bfs_child_args.levels, _agg_bfs_child_args.targets, _agg_bfs_child_args.curr, _agg_bfs_child_args.nbr_off, _agg_bfs_child_args.num_nbr, _agg_bfs_child_args.changed);
    if (cudaGetLastError() != cudaSuccess) atomicAdd(launch_errors, 1u);
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
      {
        const nestor::dp::agg_pool<bfs_child__agg_args> _agg_pool = bfs_child__agg_pool_host();
        nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool), "bfs_child__agg_pool: reset");
        bfs_parent<<<(n + 255) / 256, 256>>>(d_levels, d_offsets, d_targets, n, curr, d_changed, d_launches, d_errors);
      }
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
