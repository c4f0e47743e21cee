// Promotion of a device-side launch to no dynamic parallelism with the
// dbuf-global template (irregular-loop-and-recursion-templates.md II-B, case
// (b) of issue 12): a parent thread that would launch `child<<<g, b>>>(args)`
// instead
//   - runs every thread of that launch itself when the launch has fewer than
//     lb_threshold threads (thread-mapped, as the threshold rewrite does), or
//   - appends {args, g, b} to a global launch queue (the delayed buffer);
// after the parent grid, a block-mapped kernel drains the queue: one block
// per queued launch, its threads striding over the launch's child threads.
// Nothing launches from the device any more, so the program builds without
// -rdc and cudadevrt.
//
// CDP2 semantics kept: a child grid may run at any point before the parent
// grid completes and the parent cannot wait for it, so running its threads in
// the parent or after the parent grid is a valid schedule, provided the child
// needs no block of its own (no __shared__, barriers or warp collectives: the
// rewrite checks this). The child's body takes its thread identity as
// parameters (threadIdx, blockIdx, blockDim, gridDim).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace nestor::tmpl {

/// The queue of delayed launches; `Item` holds the child's arguments and the
/// launch's configuration as `nestor_grid` and `nestor_block`. A default-constructed queue takes nothing.
template <class Item> struct launch_queue {
  Item *items = nullptr;
  unsigned *count = nullptr;
  unsigned capacity = 0;
};

/// The parent's extra parameter: dbuf-global uses `large` only, dual-queue
/// both. Default-constructed: every launch runs in its parent thread.
template <class Item> struct launch_queues {
  launch_queue<Item> small, large;
};

#if defined(__CUDACC__)
namespace detail {
__host__ __device__ inline unsigned long long volume(dim3 d) { return (unsigned long long)d.x * d.y * d.z; }
/// Child thread number `j` of a <<<grid, block>>> launch as its identity.
__device__ inline void child_identity(unsigned long long j, dim3 grid, dim3 block, uint3 &t, uint3 &b) {
  const unsigned long long per_block = volume(block);
  const unsigned long long blk = j / per_block, in = j % per_block;
  t = make_uint3(unsigned(in % block.x), unsigned(in / block.x % block.y), unsigned(in / ((unsigned long long)block.x * block.y)));
  b = make_uint3(unsigned(blk % grid.x), unsigned(blk / grid.x % grid.y), unsigned(blk / ((unsigned long long)grid.x * grid.y)));
}
} // namespace detail

/// Every thread of a <<<grid, block>>> launch, run in the calling thread in
/// the hardware's linear order: `thread(threadIdx, blockIdx, blockDim, gridDim)`.
template <class Thread> __device__ void run_launch_in_thread(dim3 grid, dim3 block, Thread thread) {
  const unsigned long long n = detail::volume(grid) * detail::volume(block);
  for (unsigned long long j = 0; j < n; ++j) {
    uint3 t, b;
    detail::child_identity(j, grid, block, t, b);
    thread(t, b, block, grid);
  }
}

/// Appends a launch; false when the queue is full or absent (the caller then
/// runs the launch in its thread).
template <class Item> __device__ bool push_launch(const launch_queue<Item> &q, const Item &item) {
  if (!q.count) return false;
  const unsigned s = atomicAdd(q.count, 1u);
  if (s >= q.capacity) return false;
  q.items[s] = item;
  return true;
}

/// The passes over delayed launches; every thread of the grid calls it.
/// Block-mapped (dbuf-global, and dual-queue's large queue): for each queued
/// launch (block stride over the queue) the block's threads stride over the
/// launch's child threads. Thread-mapped (dual-queue's small queue): each
/// thread runs every child thread of one queued launch.
/// `thread(item, threadIdx, blockIdx, blockDim, gridDim)` runs one child thread.
template <class Item, class Thread>
__device__ void drain_launches(const launch_queue<Item> &q, bool block_mapped, Thread thread) {
  const unsigned n = *q.count < q.capacity ? *q.count : q.capacity;
  const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
  const unsigned me = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  if (!block_mapped) {
    for (unsigned long long k = (unsigned long long)me * threads + tid; k < n; k += (unsigned long long)blocks * threads) {
      const Item item = q.items[k];
      run_launch_in_thread(item.nestor_grid, item.nestor_block,
                           [&](uint3 t, uint3 b, dim3 bd, dim3 gd) { thread(item, t, b, bd, gd); });
    }
    return;
  }
  for (unsigned k = me; k < n; k += blocks) {
    const Item item = q.items[k];
    const unsigned long long total = detail::volume(item.nestor_grid) * detail::volume(item.nestor_block);
    for (unsigned long long j = tid; j < total; j += threads) {
      uint3 t, b;
      detail::child_identity(j, item.nestor_grid, item.nestor_block, t, b);
      thread(item, t, b, item.nestor_block, item.nestor_grid);
    }
  }
}
#endif // __CUDACC__

/// Device memory of one call site's launch queue, grown on demand
/// (cudaMalloc, never managed memory).
template <class Item> class launch_queue_pool {
public:
  ~launch_queue_pool() {
    if (mem_) cudaFree(mem_);
  }
  /// A queue for `items` launches with its count zeroed on the default
  /// stream; an empty queue when the allocation fails (every launch then
  /// runs in its parent thread).
  launch_queue<Item> prepare(unsigned long long items) {
    launch_queue<Item> q;
    if (items == 0 || items > 0xffffffffull) return q;
    if (items > cap_) {
      if (mem_) cudaFree(mem_);
      mem_ = nullptr;
      cap_ = 0;
      if (cudaMalloc(&mem_, size_t(items) * sizeof(Item) + sizeof(unsigned)) != cudaSuccess) {
        (void)cudaGetLastError();
        mem_ = nullptr;
        return q;
      }
      cap_ = items;
    }
    q.items = static_cast<Item *>(mem_);
    q.count = reinterpret_cast<unsigned *>(static_cast<char *>(mem_) + size_t(cap_) * sizeof(Item));
    q.capacity = unsigned(items);
    if (cudaMemsetAsync(q.count, 0, sizeof(unsigned), 0) != cudaSuccess) return launch_queue<Item>{};
    return q;
  }

private:
  void *mem_ = nullptr;
  unsigned long long cap_ = 0;
};

/// Blocks of the passes over delayed launches: enough to fill the device;
/// each pass strides over its queue.
inline dim3 drain_grid() {
  static unsigned blocks = [] {
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      sms = 80;
    return unsigned(sms) * 16u;
  }();
  return dim3(blocks);
}
/// Threads per block of the block-mapped pass (the paper's choice for
/// block-mapped phases, section III-B) and of the thread-mapped one.
constexpr unsigned kDrainThreads = 64;
constexpr unsigned kSmallDrainThreads = 256;

/// Host side of a promoted launch: `parent(grid, block, queues)` launches
/// the parent grid (each parent thread delays at most one launch); then
/// `drain(grid, block, queue, block_mapped)` runs the pass over the small
/// queue (dual-queue only, thread-mapped) and over the large one
/// (block-mapped). One pool per call site (per lambda type); the passes are
/// ordered on the default stream.
template <class Item, class Parent, class Drain>
void launch_promoted(dim3 grid, dim3 block, bool dual, Parent parent, Drain drain) {
  static launch_queue_pool<Item> large_pool, small_pool;
  const unsigned long long threads = (unsigned long long)grid.x * grid.y * grid.z * (unsigned long long)block.x * block.y * block.z;
  launch_queues<Item> q;
  q.large = large_pool.prepare(threads);
  if (dual) q.small = small_pool.prepare(threads);
  parent(grid, block, q);
  if (q.small.count) drain(drain_grid(), dim3(kSmallDrainThreads), q.small, false);
  if (q.large.count) drain(drain_grid(), dim3(kDrainThreads), q.large, true);
}

} // namespace nestor::tmpl
