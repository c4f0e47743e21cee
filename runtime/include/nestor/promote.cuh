// Promotion of a device-side launch to no dynamic parallelism with the
// dbuf-global template (Li, Wu, Becchi,
// "Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations",
// II-B): a parent thread that would launch `child<<<g, b>>>(args)`
// instead
//   - runs every thread of that launch itself when the launch has fewer than
//     lb_threshold threads (thread-mapped, as the threshold rewrite does), or
//   - appends {args, g, b} to a global launch queue (the delayed buffer);
// after the parent grid, a block-mapped kernel drains the queue: its blocks
// take tasks of up to kDrainChunk child threads each (a queued launch of V
// threads is ceil(V / kDrainChunk) tasks), so a hub's launch is spread over
// many blocks as its own grid would have been. Task k < n (the queue length)
// is the first chunk of queued launch k; a launch of more than one chunk
// reserves its other chunks where it is queued, as tasks n + base + j.
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
#include <nestor/ops.cuh>

#include <cuda_runtime.h>

#include <cstddef>

namespace nestor::tmpl {

/// Child threads per task of the block-mapped pass: 8 per thread of its
/// 64-thread blocks, enough to amortise looking a task up, small enough that
/// a launch of a few thousand threads (a hub's edges) is spread over several
/// blocks.
constexpr unsigned long long kDrainChunk = 512;
constexpr unsigned kWhole = ~0u;

/// The queue of delayed launches; `Item` holds the child's arguments and the
/// launch's configuration as `nestor_grid` and `nestor_block`. A default-constructed queue takes nothing.
/// With `extra` (the block-mapped queue), a launch of more than one chunk
/// queued in slot s reserves its chunks 1.. as tasks n + base[s] + j - 1, where
/// extra_item[base[s] + j - 1] = s; when the reservation does not fit, base[s]
/// is kWhole and the launch is one task of all its threads.
template <class Item> struct launch_queue {
  Item *items = nullptr;
  unsigned *count = nullptr;
  unsigned capacity = 0;
  unsigned *base = nullptr;        ///< per slot: its first extra task, or kWhole
  unsigned *extra_item = nullptr;  ///< [extra_capacity] an extra task's launch, or kWhole (a hole)
  unsigned long long *extra = nullptr; ///< extra tasks reserved (may run past extra_capacity)
  unsigned long long extra_capacity = 0;
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
/// Threads of a delayed launch.
template <class Item> __device__ unsigned long long launch_threads(const Item &item) {
  return volume(item.nestor_grid) * volume(item.nestor_block);
}
/// Child threads [first, last) of a delayed launch, spread over the calling
/// block's threads (block-mapped); all of them call it.
template <class Item, class Thread>
__device__ void run_launch_range_in_block(const Item &item, unsigned long long first, unsigned long long last, Thread &thread) {
  for (unsigned long long j = first + nestor::detail::linear_tid(); j < last; j += nestor::detail::block_threads()) {
    uint3 t, b;
    child_identity(j, item.nestor_grid, item.nestor_block, t, b);
    thread(item, t, b, item.nestor_block, item.nestor_grid);
  }
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
  if (!q.extra) return true;
  const unsigned long long v = detail::launch_threads(item);
  const unsigned long long chunks = v <= kDrainChunk ? 1ull : (v - 1) / kDrainChunk + 1;
  if (chunks == 1) return true; // its one task is task s: no reservation, no atomic
  const unsigned long long base = atomicAdd(q.extra, chunks - 1);
  const bool fits = base + chunks - 1 <= q.extra_capacity;
  // A reservation past the capacity leaves holes (the pass skips them) and
  // the launch becomes one task of all its threads.
  const unsigned long long stop = fits ? base + chunks - 1 : (base < q.extra_capacity ? q.extra_capacity : base);
  for (unsigned long long t = base; t < stop; ++t) q.extra_item[t] = fits ? s : kWhole;
  q.base[s] = fits ? unsigned(base) : kWhole;
  return true;
}

/// The passes over delayed launches; every thread of the grid calls it.
/// Block-mapped (dbuf-global, and dual-queue's large queue): blocks take
/// tasks with a block stride and stride over each task's child threads
/// (without tasks, a queue made by hand: one block per launch). Thread-mapped
/// (dual-queue's small queue): each thread runs every child thread of one
/// queued launch.
/// `thread(item, threadIdx, blockIdx, blockDim, gridDim)` runs one child thread.
template <class Item, class Thread>
__device__ void drain_launches(const launch_queue<Item> &q, bool block_mapped, Thread thread) {
  const unsigned n = *q.count < q.capacity ? *q.count : q.capacity;
  const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
  const unsigned me = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned tid = nestor::detail::linear_tid(), threads = nestor::detail::block_threads();
  if (!block_mapped) {
    for (unsigned long long k = (unsigned long long)me * threads + tid; k < n; k += (unsigned long long)blocks * threads) {
      const Item item = q.items[k];
      run_launch_in_thread(item.nestor_grid, item.nestor_block,
                           [&](uint3 t, uint3 b, dim3 bd, dim3 gd) { thread(item, t, b, bd, gd); });
    }
    return;
  }
  if (!q.extra) {
    for (unsigned k = me; k < n; k += blocks) detail::run_launch_range_in_block(q.items[k], 0, detail::launch_threads(q.items[k]), thread);
    return;
  }
  // Tasks are at most kDrainChunk child threads each (or a whole launch whose
  // reservation did not fit), so a block stride balances them without a
  // ticket counter (whose atomic and barriers per task cost more than they
  // saved on graphs of small launches).
  const unsigned long long extra = *q.extra < q.extra_capacity ? *q.extra : q.extra_capacity;
  for (unsigned long long t = me; t < n + extra; t += blocks) {
    unsigned s;
    unsigned long long chunk = 0;
    if (t < n) {
      s = unsigned(t);
    } else {
      s = q.extra_item[t - n];
      if (s == kWhole) continue; // a reservation that did not fit
    }
    const Item item = q.items[s];
    const unsigned long long v = detail::launch_threads(item);
    if (v > kDrainChunk && q.base[s] == kWhole) { // its reservation did not fit: all of it
      if (t < n) detail::run_launch_range_in_block(item, 0, v, thread);
      continue;
    }
    if (t >= n) chunk = t - n - q.base[s] + 1;
    const unsigned long long first = chunk * kDrainChunk;
    detail::run_launch_range_in_block(item, first, v < first + kDrainChunk ? v : first + kDrainChunk, thread);
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
  /// A queue for `items` launches with its counters zeroed on the default
  /// stream, with `tasks` extra task entries (0: none, a thread-mapped
  /// queue); an empty queue when the allocation fails (every launch then runs
  /// in its parent thread).
  launch_queue<Item> prepare(unsigned long long items, unsigned long long tasks = 0) {
    launch_queue<Item> q;
    if (items == 0 || items > 0xffffffffull || tasks > 0xffffffffull) return q;
    if (items > cap_ || tasks > task_cap_) {
      if (mem_) cudaFree(mem_);
      mem_ = nullptr;
      cap_ = task_cap_ = 0;
      if (cudaMalloc(&mem_, bytes(items, tasks)) != cudaSuccess) {
        (void)cudaGetLastError();
        mem_ = nullptr;
        return q;
      }
      cap_ = items;
      task_cap_ = tasks;
    }
    // The counters first, then the records (aligned for Item), then the task arrays.
    char *p = static_cast<char *>(mem_);
    header *h = reinterpret_cast<header *>(p);
    q.items = reinterpret_cast<Item *>(p + items_at());
    q.count = &h->count;
    q.capacity = unsigned(items);
    if (tasks) {
      q.base = reinterpret_cast<unsigned *>(p + items_at() + size_t(cap_) * sizeof(Item));
      q.extra_item = q.base + cap_;
      q.extra = &h->extra;
      q.extra_capacity = tasks;
    }
    if (cudaMemsetAsync(h, 0, sizeof(header), 0) != cudaSuccess) return launch_queue<Item>{};
    return q;
  }

private:
  struct header {
    unsigned long long extra;
    unsigned count;
  };
  static constexpr size_t items_at() { return (sizeof(header) + alignof(Item) - 1) / alignof(Item) * alignof(Item); }
  static size_t bytes(unsigned long long items, unsigned long long tasks) {
    return items_at() + size_t(items) * sizeof(Item) + size_t(items + tasks) * sizeof(unsigned);
  }
  void *mem_ = nullptr;
  unsigned long long cap_ = 0, task_cap_ = 0;
};

/// Blocks of the passes over delayed launches: enough to fill the device
/// (`per_sm` per SM; 32 of the block-mapped pass's 64-thread blocks are an
/// SM's 2,048 threads); each pass strides over its queue or takes tasks.
inline dim3 drain_grid(unsigned per_sm = 16) {
  static unsigned sms = [] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      n = 80;
    return unsigned(n);
  }();
  return dim3(sms * per_sm);
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
/// ordered on the default stream. `tasks`: the large queue's extra task
/// entries (0: four per parent thread; tests lower it to make reservations fail).
template <class Item, class Parent, class Drain>
void launch_promoted(dim3 grid, dim3 block, bool dual, Parent parent, Drain drain, unsigned long long tasks = 0) {
  static launch_queue_pool<Item> large_pool, small_pool;
  const unsigned long long threads = (unsigned long long)grid.x * grid.y * grid.z * (unsigned long long)block.x * block.y * block.z;
  launch_queues<Item> q;
  q.large = large_pool.prepare(threads, tasks ? tasks : 4 * threads);
  if (dual) q.small = small_pool.prepare(threads);
  parent(grid, block, q);
  if (q.small.count) drain(drain_grid(), dim3(kSmallDrainThreads), q.small, false);
  if (q.large.count) drain(drain_grid(16), dim3(kDrainThreads), q.large, true);
}

} // namespace nestor::tmpl
