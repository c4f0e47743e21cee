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
                          unsigned num_nbr, int* changed, dim3 _gDim) {
  // Coarsened by Nestor (strategy 1): each block runs NESTOR_CFACTOR original blocks.
  for (unsigned _bx = blockIdx.x; _bx < _gDim.x; _bx += gridDim.x) {
    const dim3 _bIdx(_bx, blockIdx.y, blockIdx.z);
    {
      unsigned gid = blockDim.x * _bIdx.x + threadIdx.x;
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

// One launch of bfs_child, recorded for aggregation (Nestor aggregate rewrite).
struct bfs_child__agg_args {
  unsigned int *levels;
  const unsigned int *targets;
  unsigned int curr;
  unsigned int nbr_off;
  unsigned int num_nbr;
  int *changed;
  dim3 _gDim;
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
    auto _gDim = _c.args->_gDim;
    {
      // Coarsened by Nestor (strategy 1): each block runs NESTOR_CFACTOR original blocks.
      for (unsigned _bx = _c.blockIdx.x; _bx < _gDim.x; _bx += _c.gridDim.x) {
        const dim3 _bIdx(_bx, _c.blockIdx.y, _c.blockIdx.z);
        {
          unsigned gid = _c.blockDim.x * _bIdx.x + _c.threadIdx.x;
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

// Serial form of bfs_child (Nestor threshold rewrite): runs every thread of a
// <<<_gDim, _bDim>>> launch in the calling thread; `return` ends one child thread.
__device__ void bfs_child__serial(unsigned* levels, const unsigned* targets, unsigned curr, unsigned nbr_off, unsigned num_nbr, int* changed, dim3 _gDim, dim3 _bDim) {
  nestor::dp::serial_for_each(_gDim, _bDim, [&](const nestor::dp::serial_ctx& _ctx) {
    unsigned gid = _ctx.blockDim.x * _ctx.blockIdx.x + _ctx.threadIdx.x;
    if (gid < num_nbr) {
      unsigned v = targets[gid + nbr_off];
      if (levels[v] == UINT_MAX) {
        levels[v] = curr + 1;  // every writer of this level writes the same value
        *changed = 1;
      }
    }
  });
}

__global__ void bfs_parent(unsigned* levels, const unsigned* offsets, const unsigned* targets, unsigned n,
                           unsigned curr, int* changed, unsigned long long* launches, unsigned* launch_errors) {
  unsigned gid = blockDim.x * blockIdx.x + threadIdx.x;
  if (gid < n) {
    if (levels[gid] == curr) {
      unsigned nbr_off = offsets[gid];
      unsigned num_nbr = offsets[gid + 1] - nbr_off;
      // (num_nbr - 1) / b + 1 wraps for num_nbr == 0: zero-degree vertices must not launch.
      if (num_nbr > 0) {
        {
          const auto __threads = num_nbr;
          const dim3 _gDim((__threads - 1) / BFS_CHILD_BLOCK + 1), _bDim(BFS_CHILD_BLOCK);
          if (__threads >= NESTOR_THRESHOLD) {
            {
              const dim3 _agg_grid(nestor::dp::coarsen_x(_gDim, NESTOR_CFACTOR)), _agg_block(_bDim);
              bfs_child__agg_args _agg_args;
              _agg_args.levels = levels;
              _agg_args.targets = targets;
              _agg_args.curr = curr;
              _agg_args.nbr_off = nbr_off;
              _agg_args.num_nbr = num_nbr;
              _agg_args.changed = changed;
              _agg_args._gDim = _gDim;
              if (!nestor::dp::aggregate_grid(bfs_child__agg_pool, _agg_grid, _agg_block, _agg_args)) {
                // refused (pool full, launch too large): the original launch
                atomicAdd(launches, 1ull);
                bfs_child<<<_agg_grid, _agg_block>>>(_agg_args.levels, _agg_args.targets, _agg_args.curr, _agg_args.nbr_off, _agg_args.num_nbr, _agg_args.changed, _agg_args._gDim);
                if (cudaGetLastError() != cudaSuccess) atomicAdd(launch_errors, 1u);
              }
            }
          } else {
            bfs_child__serial(levels, targets, curr, nbr_off, num_nbr, changed, _gDim, _bDim);
          }
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
      {
        const nestor::dp::agg_pool<bfs_child__agg_args> _agg_pool = bfs_child__agg_pool_host();
        nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool), "bfs_child__agg_pool: reset");
        bfs_parent<<<(n + 255) / 256, 256>>>(d_levels, d_offsets, d_targets, n, curr, d_changed, d_launches, d_errors);
        // After the parent grid: one launch of every recorded bfs_child launch.
        nestor::dp::agg_grid_plan _agg_plan;
        nestor::dp::agg_host_check(nestor::dp::agg_grid_read_plan(_agg_pool, &_agg_plan), "bfs_child__agg_pool: read plan");
        nestor::dp::agg_host_check(nestor::dp::agg_grid_launch(_agg_pool, _agg_plan, bfs_child__agg, 0), "bfs_child__agg: launch");
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
