// Device runtime for Nestor's dynamic-parallelism (DP) rewrites: threshold,
// coarsen and aggregate (thesis "DP threshold/coarsen/aggregate", ch. 2-3,
// KLAP-style aggregation of §2.4). Rewritten code includes this header and is
// built with `nvcc -rdc=true -arch=sm_90 ... -lcudadevrt`.
//
// The contract the rewriters rely on is written down in docs/runtime-dp.md;
// every public name there is defined here.
//
// CDP2 (CUDA 12+, compute_90): device-side cudaDeviceSynchronize does not
// exist. Nothing here waits for a child grid on the device; grid-granularity
// aggregation therefore hands the aggregated launch to the host, which issues
// it after the parent grid has completed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// ---- tuning macros (each may be overridden with -D) -------------------------

// Launches whose inferred child thread count is below this run serially in the
// parent thread (threshold rewrite, thesis §3.1.4).
#ifndef NESTOR_THRESHOLD
#define NESTOR_THRESHOLD 128
#endif

// Number of original child blocks executed by one coarsened block (thesis §3.2).
#ifndef NESTOR_CFACTOR
#define NESTOR_CFACTOR 4
#endif

// Launch records a pool created with the default capacity can hold.
#ifndef NESTOR_AGG_POOL_CAPACITY
#define NESTOR_AGG_POOL_CAPACITY (1u << 20)
#endif

// Launches of more blocks than this are never aggregated (the request is
// refused and the caller launches directly). Such a grid already fills the GPU
// on its own, and the bound is what keeps the 32-bit block half of the fused
// grid-granularity counter from wrapping: at most 2^14 resident warps, each
// adding at most 32 * 4096 blocks past the 2^31 - 1 limit, stay below 2^32.
#ifndef NESTOR_AGG_MAX_RECORD_BLOCKS
#define NESTOR_AGG_MAX_RECORD_BLOCKS 4096u
#endif

static_assert(NESTOR_CFACTOR >= 1, "NESTOR_CFACTOR must be at least 1");
static_assert(NESTOR_AGG_POOL_CAPACITY >= 1u && NESTOR_AGG_POOL_CAPACITY <= (1u << 30),
              "NESTOR_AGG_POOL_CAPACITY must be in [1, 2^30]");
static_assert(NESTOR_AGG_MAX_RECORD_BLOCKS >= 1u && NESTOR_AGG_MAX_RECORD_BLOCKS <= 4096u,
              "NESTOR_AGG_MAX_RECORD_BLOCKS must be in [1, 4096] (see the wrap argument above)");

namespace nestor::dp {

// ---- launch-configuration arithmetic ----------------------------------------

// Number of elements of a grid or block shape (x * y * z), without overflow.
__host__ __device__ constexpr unsigned long long volume(dim3 d) {
  return static_cast<unsigned long long>(d.x) * d.y * d.z;
}

// ceil(n / d) in integers; d == 0 yields 0 rather than a trap.
__host__ __device__ constexpr unsigned ceil_div(unsigned long long n, unsigned d) {
  return d == 0 ? 0u : static_cast<unsigned>((n + d - 1) / d);
}

// Grid of a coarsened launch: the x extent divided by `factor` (rounded up).
__host__ __device__ inline dim3 coarsen_x(dim3 grid, unsigned factor = NESTOR_CFACTOR) {
  return dim3(ceil_div(grid.x, factor), grid.y, grid.z);
}

// Grid of a coarsened launch over every dimension of the child grid.
__host__ __device__ inline dim3 coarsen_xyz(dim3 grid, unsigned factor = NESTOR_CFACTOR) {
  return dim3(ceil_div(grid.x, factor), ceil_div(grid.y, factor), ceil_div(grid.z, factor));
}

// ---- threshold: serial form of a child launch --------------------------------

// Virtual built-ins of one child thread executed serially by its parent. The
// rewriter replaces gridDim/blockDim/blockIdx/threadIdx in the child body by
// the fields of this struct.
struct serial_ctx {
  dim3 gridDim;
  dim3 blockDim;
  dim3 blockIdx;
  dim3 threadIdx;
};

// Runs body(const serial_ctx&) once for every thread of a <<<grid, block>>>
// launch, blocks in x-fastest order and threads in x-fastest order within a
// block (the hardware's linear order). A `return` inside a lambda body ends only
// that child thread's iteration, which is the meaning `return` had in the child.
// (exec-check disabled: the same template serves device lambdas and host lambdas.)
#pragma nv_exec_check_disable
template <class Body>
__host__ __device__ void serial_for_each(dim3 grid, dim3 block, Body&& body) {
  serial_ctx c;
  c.gridDim = grid;
  c.blockDim = block;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        c.blockIdx = dim3(bx, by, bz);
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx) {
              c.threadIdx = dim3(tx, ty, tz);
              body(static_cast<const serial_ctx&>(c));
            }
      }
}

// ---- aggregation (KLAP, thesis §2.4) -----------------------------------------

// Largest aggregated grid (x) the hardware accepts.
inline constexpr unsigned kMaxAggregatedBlocks = 0x7fffffffu;
inline constexpr unsigned kMaxRecordBlocks = NESTOR_AGG_MAX_RECORD_BLOCKS;
inline constexpr unsigned kMaxBlockThreads = 1024u;

// Counters at the head of every pool. Reset (all zero) before each parent launch.
struct agg_counters {
  // Grid granularity: (blocks reserved << 32) | records reserved. One fused
  // atomic orders record slots and block offsets identically, so block_end is
  // non-decreasing in slot order and children can binary-search it.
  unsigned long long grid_fused;
  unsigned int group_used;          // warp/block granularity: slots reserved (may pass capacity)
  unsigned int grid_records;        // grid: accepted records (they are the slots [0, grid_records))
  unsigned int grid_blocks;         // grid: blocks of the accepted records
  unsigned int grid_block_threads;  // grid: largest block (threads) among the accepted records
  unsigned int refused;             // requests answered `false` (pool full, too large, launch failed)
  unsigned int device_launches;     // aggregated launches made on the device (warp/block)
};

// One original child launch: its arguments (a user struct) and configuration.
template <class Args>
struct agg_record {
  Args args;
  dim3 grid;
  dim3 block;
};

// Device view of a preallocated pool. Trivially copyable: pass it by value to
// parent kernels. Memory layout (see agg_pool_bytes): counters, block_end[cap],
// records[cap]. Nothing is ever written outside that range.
template <class Args>
struct agg_pool {
  agg_counters* counters = nullptr;
  unsigned* block_end = nullptr;  // inclusive scan of record block counts (per batch)
  agg_record<Args>* records = nullptr;
  unsigned capacity = 0;
};

// What an aggregated child kernel receives: `count` records whose block ranges
// are [block_end[i-1], block_end[i]) of the aggregated grid (block_end[-1] = 0).
template <class Args>
struct agg_batch {
  const agg_record<Args>* records;
  const unsigned* block_end;
  unsigned count;
};

namespace detail {
__host__ __device__ constexpr size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }
__host__ __device__ constexpr size_t block_end_offset() { return align_up(sizeof(agg_counters), 256); }
template <class Args>
__host__ __device__ constexpr size_t records_offset(unsigned capacity) {
  return align_up(block_end_offset() + sizeof(unsigned) * static_cast<size_t>(capacity),
                  alignof(agg_record<Args>) > 256 ? alignof(agg_record<Args>) : 256);
}
}  // namespace detail

// Bytes a pool of `capacity` records occupies (counters + block_end + records).
template <class Args>
__host__ __device__ constexpr size_t agg_pool_bytes(unsigned capacity) {
  return detail::records_offset<Args>(capacity) + sizeof(agg_record<Args>) * static_cast<size_t>(capacity);
}

// Lays a pool over caller-provided device memory of at least
// agg_pool_bytes<Args>(capacity) bytes, 256-byte aligned (cudaMalloc is).
template <class Args>
__host__ __device__ agg_pool<Args> agg_pool_view(void* memory, unsigned capacity) {
  auto* base = static_cast<unsigned char*>(memory);
  agg_pool<Args> p;
  p.counters = reinterpret_cast<agg_counters*>(base);
  p.block_end = reinterpret_cast<unsigned*>(base + detail::block_end_offset());
  p.records = reinterpret_cast<agg_record<Args>*>(base + detail::records_offset<Args>(capacity));
  p.capacity = capacity;
  return p;
}

// Index of the record whose block range contains `block`: the first i in
// [0, count) with block_end[i] > block, or `count` when there is none.
// block_end must be non-decreasing (empty ranges are skipped).
__host__ __device__ inline unsigned find_record(const unsigned* block_end, unsigned count, unsigned block) {
  unsigned lo = 0, hi = count;
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    if (block_end[mid] > block) hi = mid; else lo = mid + 1;
  }
  return lo;
}

// Virtual built-ins of one thread of an aggregated child, i.e. where it stands
// in the original launch it belongs to.
template <class Args>
struct agg_child {
  const Args* args;       // that launch's arguments
  unsigned record;        // index in the batch
  dim3 gridDim, blockDim, blockIdx, threadIdx;
  // False for threads beyond the original block size (the aggregated child runs
  // with the largest block of its batch). Such threads must skip the body but
  // still reach every __syncthreads(): guard the body, never `return` early.
  bool active;
};

// Child-side disaggregation: call first in an aggregated child kernel, which is
// launched with a 1-D grid and a 1-D block (see the aggregate_* functions).
template <class Args>
__device__ agg_child<Args> agg_child_locate(const agg_batch<Args>& batch) {
  agg_child<Args> c;
  const unsigned r = find_record(batch.block_end, batch.count, blockIdx.x);
  // r == count cannot happen for grids launched by this header; keep it safe anyway.
  const unsigned safe = r < batch.count ? r : (batch.count ? batch.count - 1 : 0);
  const agg_record<Args>& rec = batch.records[safe];
  const unsigned first = safe == 0 ? 0u : batch.block_end[safe - 1];
  const unsigned b = blockIdx.x - first;
  c.args = &rec.args;
  c.record = safe;
  c.gridDim = rec.grid;
  c.blockDim = rec.block;
  c.blockIdx = dim3(b % rec.grid.x, (b / rec.grid.x) % rec.grid.y, b / (rec.grid.x * rec.grid.y));
  const unsigned t = threadIdx.x;
  c.threadIdx = dim3(t % rec.block.x, (t / rec.block.x) % rec.block.y, t / (rec.block.x * rec.block.y));
  c.active = r < batch.count && t < rec.block.x * rec.block.y * rec.block.z;
  return c;
}

namespace detail {
// Size checks shared by every granularity: 0 = nothing to launch, 1 = may be
// aggregated, 2 = refuse (caller launches directly).
__device__ inline int classify(dim3 grid, dim3 block, unsigned* blocks, unsigned* threads) {
  const unsigned long long nb = volume(grid), nt = volume(block);
  *blocks = 0;
  *threads = 0;
  if (nb == 0) return 0;
  if (nb > kMaxRecordBlocks || nt == 0 || nt > kMaxBlockThreads) return 2;
  *blocks = static_cast<unsigned>(nb);
  *threads = static_cast<unsigned>(nt);
  return 1;
}

// Warps are formed from the linear thread index, whatever the block's shape.
__device__ inline unsigned linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ inline unsigned lane_id() { return linear_tid() & 31u; }

// Over the lanes of `mask` (all of which must call): exclusive prefix of `v`
// over lower lanes, total and maximum of `w`.
__device__ inline void warp_scan(unsigned mask, unsigned lane, unsigned v, unsigned w,
                                 unsigned* prefix, unsigned* total, unsigned* max_w) {
  unsigned p = 0, t = 0, m = 0;
  for (unsigned bits = mask; bits; bits &= bits - 1) {
    const unsigned src = __ffs(bits) - 1;
    const unsigned sv = __shfl_sync(mask, v, src);
    const unsigned sw = __shfl_sync(mask, w, src);
    if (src < lane) p += sv;
    t += sv;
    m = sw > m ? sw : m;
  }
  *prefix = p;
  *total = t;
  *max_w = m;
}

__device__ inline unsigned volatile_load(const unsigned* p) { return *static_cast<const volatile unsigned*>(p); }
__device__ inline unsigned long long volatile_load(const unsigned long long* p) {
  return *static_cast<const volatile unsigned long long*>(p);
}

// Reserves `n` consecutive slots for a warp/block group, or returns false
// (without reserving past the pool, apart from the counter itself) when full.
template <class Args>
__device__ bool reserve_group(const agg_pool<Args>& pool, unsigned n, unsigned* base) {
  // The pre-check keeps the counter from growing without bound (and wrapping)
  // once the pool is full.
  if (volatile_load(&pool.counters->group_used) >= pool.capacity) return false;
  const unsigned b = atomicAdd(&pool.counters->group_used, n);
  *base = b;
  return b < pool.capacity && n <= pool.capacity - b;
}
}  // namespace detail

#if defined(__CUDACC_RDC__)
// Warp granularity. Called by any subset of a warp's threads (possibly
// divergent code), each with its own launch; the lanes that arrive together are
// aggregated into one launch of `child`, made by one lane, with a 1-D grid of
// the summed blocks and a 1-D block of the largest block among them.
// Returns true when this thread's launch is taken care of (aggregated, or it had
// zero blocks); false when the caller must make the original launch itself
// (pool full, launch too large to aggregate, or the device launch failed).
template <class Args>
__device__ bool aggregate_warp(const agg_pool<Args>& pool, void (*child)(agg_batch<Args>), dim3 grid,
                               dim3 block, const Args& args, unsigned shared_bytes = 0,
                               cudaStream_t stream = 0) {
  const unsigned mask = __activemask();
  const unsigned lane = detail::lane_id();
  unsigned nb, nt;
  const int kind = detail::classify(grid, block, &nb, &nt);
  const unsigned eligible = __ballot_sync(mask, kind == 1);
  const unsigned refused_mask = __ballot_sync(mask, kind == 2);
  unsigned prefix, total_blocks, max_threads;
  detail::warp_scan(mask, lane, nb, nt, &prefix, &total_blocks, &max_threads);
  const unsigned leader = eligible ? __ffs(eligible) - 1 : __ffs(mask) - 1;
  unsigned base = 0;
  int ok = 0;
  if (lane == leader && eligible) ok = detail::reserve_group(pool, __popc(eligible), &base);
  ok = __shfl_sync(mask, ok, leader);
  base = __shfl_sync(mask, base, leader);
  if (ok && kind == 1) {
    const unsigned idx = base + __popc(eligible & ((1u << lane) - 1u));
    pool.block_end[idx] = prefix + nb;
    pool.records[idx] = agg_record<Args>{args, grid, block};
    __threadfence();  // records visible to the child launched by another lane
  }
  __syncwarp(mask);
  if (lane == leader && ok) {
    agg_batch<Args> batch{pool.records + base, pool.block_end + base, static_cast<unsigned>(__popc(eligible))};
    child<<<total_blocks, max_threads, shared_bytes, stream>>>(batch);
    if (cudaGetLastError() != cudaSuccess) ok = 0;
    else atomicAdd(&pool.counters->device_launches, 1u);
  }
  ok = __shfl_sync(mask, ok, leader);
  const unsigned refused = refused_mask | (ok ? 0u : eligible);
  if (lane == leader && refused) atomicAdd(&pool.counters->refused, static_cast<unsigned>(__popc(refused)));
  if (kind == 0) return true;
  return kind == 1 && ok;
}

// Block granularity. Must be called by every thread of the block at the same
// point (it contains __syncthreads); `want` says whether this thread has a
// launch. One thread launches `child` once for all launches of the block.
// Return value as for aggregate_warp (true for threads with want == false).
template <class Args>
__device__ bool aggregate_block(const agg_pool<Args>& pool, void (*child)(agg_batch<Args>), bool want,
                                dim3 grid, dim3 block, const Args& args, unsigned shared_bytes = 0,
                                cudaStream_t stream = 0) {
  __shared__ unsigned s_warp_count[32], s_warp_blocks[32], s_warp_threads[32];
  __shared__ unsigned s_base, s_total_blocks, s_max_threads, s_count;
  __shared__ int s_ok;
  const unsigned tid = detail::linear_tid();
  const unsigned lane = tid & 31u, warp = tid >> 5;
  const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned nwarps = (nthreads + 31) / 32;
  unsigned nb = 0, nt = 0;
  const int kind = want ? detail::classify(grid, block, &nb, &nt) : 0;
  // Every thread of the block calls this, but a warp may arrive in pieces
  // (some lanes still running a child serially in the parent thread, as the
  // threshold rewrite makes them): __activemask() would then name only the
  // lanes that arrived together, and each piece would write its own warp's
  // counts over the other's, losing launches. Wait for the whole warp (the
  // lanes the block has in it) and count over all of them.
  const unsigned lanes_here = nthreads - warp * 32 < 32 ? nthreads - warp * 32 : 32;
  const unsigned mask = lanes_here == 32 ? 0xffffffffu : (1u << lanes_here) - 1u;
  __syncwarp(mask);
  const unsigned eligible = __ballot_sync(mask, kind == 1);
  unsigned prefix, warp_blocks, warp_threads;
  detail::warp_scan(mask, lane, nb, nt, &prefix, &warp_blocks, &warp_threads);
  if (lane == 0) {
    s_warp_count[warp] = __popc(eligible);
    s_warp_blocks[warp] = warp_blocks;
    s_warp_threads[warp] = warp_threads;
  }
  __syncthreads();
  if (tid == 0) {
    unsigned count = 0, blocks = 0, threads = 0;
    for (unsigned w = 0; w < nwarps; ++w) {  // exclusive scan over warps, in place
      const unsigned c = s_warp_count[w], b = s_warp_blocks[w];
      s_warp_count[w] = count;
      s_warp_blocks[w] = blocks;
      count += c;
      blocks += b;
      threads = s_warp_threads[w] > threads ? s_warp_threads[w] : threads;
    }
    unsigned base = 0;
    s_ok = count > 0 && detail::reserve_group(pool, count, &base);
    s_base = base;
    s_count = count;
    s_total_blocks = blocks;
    s_max_threads = threads;
  }
  __syncthreads();
  if (s_ok && kind == 1) {
    const unsigned idx = s_base + s_warp_count[warp] + __popc(eligible & ((1u << lane) - 1u));
    pool.block_end[idx] = s_warp_blocks[warp] + prefix + nb;
    pool.records[idx] = agg_record<Args>{args, grid, block};
    __threadfence();
  }
  __syncthreads();
  if (tid == 0 && s_ok) {
    agg_batch<Args> batch{pool.records + s_base, pool.block_end + s_base, s_count};
    child<<<s_total_blocks, s_max_threads, shared_bytes, stream>>>(batch);
    if (cudaGetLastError() != cudaSuccess) s_ok = 0;
    else atomicAdd(&pool.counters->device_launches, 1u);
  }
  __syncthreads();
  const bool accepted = kind == 0 || (kind == 1 && s_ok);
  if (!accepted) atomicAdd(&pool.counters->refused, 1u);
  __syncthreads();  // s_* may be reused by a following call
  return accepted;
}
#endif  // __CUDACC_RDC__

// Grid granularity, parent side. Records this thread's launch for one
// aggregated launch that the host issues after the parent grid completes
// (agg_grid_read_plan + agg_grid_launch). Callable from divergent code.
// Returns true when recorded (or zero blocks); false when the caller must make
// the original launch itself (pool full, launch too large, aggregated grid full).
template <class Args>
__device__ bool aggregate_grid(const agg_pool<Args>& pool, dim3 grid, dim3 block, const Args& args) {
  const unsigned mask = __activemask();
  const unsigned lane = detail::lane_id();
  unsigned nb, nt;
  const int kind = detail::classify(grid, block, &nb, &nt);
  const unsigned eligible = __ballot_sync(mask, kind == 1);
  unsigned prefix, total_blocks, max_threads;
  detail::warp_scan(mask, lane, nb, nt, &prefix, &total_blocks, &max_threads);
  const unsigned leader = eligible ? __ffs(eligible) - 1 : __ffs(mask) - 1;
  unsigned long long old = ~0ull;  // "refused" unless the leader reserves
  if (lane == leader && eligible) {
    const unsigned long long seen = detail::volatile_load(&pool.counters->grid_fused);
    if (static_cast<unsigned>(seen) < pool.capacity && (seen >> 32) < kMaxAggregatedBlocks) {
      const unsigned long long add = (static_cast<unsigned long long>(total_blocks) << 32) | __popc(eligible);
      old = atomicAdd(&pool.counters->grid_fused, add);
    }
  }
  old = __shfl_sync(mask, old, leader);
  bool accepted = false;
  unsigned idx = 0, end = 0;
  if (kind == 1 && old != ~0ull) {
    idx = static_cast<unsigned>(old) + __popc(eligible & ((1u << lane) - 1u));
    const unsigned long long start = (old >> 32) + prefix;
    accepted = idx < pool.capacity && start + nb <= kMaxAggregatedBlocks;
    if (accepted) {
      end = static_cast<unsigned>(start + nb);
      pool.block_end[idx] = end;
      pool.records[idx] = agg_record<Args>{args, grid, block};
    }
  }
  // Accepted lanes are a prefix of the eligible ones (slots and offsets grow
  // together), so the highest accepted lane holds the warp's largest idx and end.
  const unsigned acc = __ballot_sync(mask, accepted);
  unsigned acc_threads = 0;
  {
    unsigned p, t;
    detail::warp_scan(mask, lane, 0u, accepted ? nt : 0u, &p, &t, &acc_threads);
  }
  if (acc && lane == 31u - __clz(acc)) {
    atomicMax(&pool.counters->grid_records, idx + 1);
    atomicMax(&pool.counters->grid_blocks, end);
    atomicMax(&pool.counters->grid_block_threads, acc_threads);
  }
  const unsigned refused = __ballot_sync(mask, kind == 2 || (kind == 1 && !accepted));
  if (lane == leader && refused) atomicAdd(&pool.counters->refused, static_cast<unsigned>(__popc(refused)));
  return kind == 0 || accepted;
}

// ---- host side ---------------------------------------------------------------

// What the host needs to issue the grid-granularity aggregated launch.
struct agg_grid_plan {
  unsigned records = 0;        // records in the aggregated launch
  unsigned blocks = 0;         // its grid (1-D)
  unsigned block_threads = 0;  // its block (1-D): the largest original block
  unsigned refused = 0;        // requests that fell back to the original launch
  unsigned device_launches = 0;
  bool empty() const { return records == 0; }
};

// Host side of rewritten code: a failed runtime call made by the generated
// pool management ends the program with a message, since the host code the
// rewrite extends has no error path it could join.
inline void agg_host_check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "nestor::dp: %s: %s\n", what, cudaGetErrorString(err));
  std::exit(1);
}

// Zeroes the counters; call (stream-ordered) before every parent launch that
// uses the pool. Records need no clearing.
template <class Args>
cudaError_t agg_pool_reset(const agg_pool<Args>& pool, cudaStream_t stream = 0) {
  if (!pool.counters) return cudaErrorInvalidValue;
  return cudaMemsetAsync(pool.counters, 0, sizeof(agg_counters), stream);
}

// Reads the counters after the parent grid (waits for `stream`).
template <class Args>
cudaError_t agg_grid_read_plan(const agg_pool<Args>& pool, agg_grid_plan* plan, cudaStream_t stream = 0) {
  if (!pool.counters || !plan) return cudaErrorInvalidValue;
  agg_counters c{};
  cudaError_t err = cudaMemcpyAsync(&c, pool.counters, sizeof c, cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) return err;
  plan->records = c.grid_records;
  plan->blocks = c.grid_blocks;
  plan->block_threads = c.grid_block_threads;
  plan->refused = c.refused;
  plan->device_launches = c.device_launches;
  return cudaSuccess;
}

// Issues the aggregated child of a grid-granularity epoch (nothing when empty).
template <class Args>
cudaError_t agg_grid_launch(const agg_pool<Args>& pool, const agg_grid_plan& plan, void (*child)(agg_batch<Args>),
                            size_t shared_bytes = 0, cudaStream_t stream = 0) {
  if (plan.empty()) return cudaSuccess;
  if (plan.blocks == 0 || plan.block_threads == 0 || plan.block_threads > kMaxBlockThreads ||
      plan.records > pool.capacity)
    return cudaErrorInvalidConfiguration;
  agg_batch<Args> batch{pool.records, pool.block_end, plan.records};
  child<<<plan.blocks, plan.block_threads, shared_bytes, stream>>>(batch);
  return cudaGetLastError();
}

// Owns the device memory of a pool (plain cudaMalloc).
template <class Args>
class agg_pool_owner {
 public:
  agg_pool_owner() = default;
  agg_pool_owner(const agg_pool_owner&) = delete;
  agg_pool_owner& operator=(const agg_pool_owner&) = delete;
  ~agg_pool_owner() { destroy(); }

  // Allocates the pool and zeroes its counters.
  cudaError_t create(unsigned capacity = NESTOR_AGG_POOL_CAPACITY) {
    destroy();
    if (capacity == 0 || capacity > (1u << 30)) return cudaErrorInvalidValue;
    cudaError_t err = cudaMalloc(&memory_, agg_pool_bytes<Args>(capacity));
    if (err != cudaSuccess) {
      memory_ = nullptr;
      return err;
    }
    pool_ = agg_pool_view<Args>(memory_, capacity);
    return cudaMemset(pool_.counters, 0, sizeof(agg_counters));
  }
  void destroy() {
    if (memory_) cudaFree(memory_);
    memory_ = nullptr;
    pool_ = agg_pool<Args>{};
  }
  const agg_pool<Args>& pool() const { return pool_; }

 private:
  void* memory_ = nullptr;
  agg_pool<Args> pool_{};
};

}  // namespace nestor::dp
