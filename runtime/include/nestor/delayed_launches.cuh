// dbuf-shared and dpar-opt on a device-side launch (Li, Wu, Becchi,
// "Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations",
// II-B, Figure 1(b) and (e)).
// A parent thread that would launch `child<<<g, b>>>(args)` runs a launch of
// fewer than lb_threshold threads itself (run_launch_in_thread, promote.cuh)
// and *holds* a larger one (`held_launch`: its arguments and configuration).
// After the parent's body, its block handles the held launches together:
//
//   dbuf_shared_launches  the block runs them itself, one after another, its
//                         threads striding over each launch's child threads.
//                         The records go to a buffer in shared memory, in
//                         rounds when more threads hold one than it has
//                         slots. No device launch is left: the program needs
//                         no -rdc.
//   dpar_opt_launches     thread 0 makes ONE device launch for the block's
//                         records (one child block per record, block-mapped);
//                         the records live on the device heap and the child
//                         grid's last block frees them. The parent never waits
//                         (CDP2: no device-side cudaDeviceSynchronize); the
//                         child grid completes before the parent grid, as the
//                         original children did. Built without -rdc, or when
//                         the launch fails, the block runs the records itself.
//
// Why this is a valid schedule: under CDP2 a child grid may start at any time
// after its launch and before its parent grid completes, and the parent
// thread cannot wait for it; running its threads in the parent thread, or in
// the parent's block after the parent body, is one such schedule, provided
// the child needs no block of its own (no __shared__, barriers or warp
// collectives: the rewrite checks this). Every thread of the block must call
// these functions (the rewrite moves the parent body into a function, so an
// early `return` there still reaches them, and it refuses parents with
// barriers of their own).
#pragma once
#include <nestor/ops.cuh>
#include <nestor/promote.cuh>

#include <new>

namespace nestor::tmpl {

/// The launch a parent thread keeps for its block (at most one: the rewrite
/// refuses launches inside loops, and a second hold is refused here).
template <class Item> struct held_launch {
  alignas(Item) unsigned char storage[sizeof(Item)];
  bool held = false;
#if defined(__CUDACC__)
  /// Keeps `item`; false when this thread holds one already (the caller then
  /// runs the launch itself).
  __device__ bool hold(const Item &item) {
    if (held) return false;
    new (storage) Item(item);
    held = true;
    return true;
  }
  __device__ const Item &item() const { return *reinterpret_cast<const Item *>(storage); }
#endif
};

/// The records of one parent block's held launches for dpar-opt's child grid.
template <class Item> struct launch_batch {
  Item *items = nullptr;
  unsigned *done = nullptr; ///< child blocks finished; the last one frees the batch
  unsigned count = 0;
};

/// Bytes of shared memory per parent block for dbuf-shared's records; as many
/// records as fit (at least one): about a hundred records of a few pointers,
/// so that one round usually holds a block's launches, while eight 256-thread
/// blocks per SM still fit (the rewrite refuses parents launched with dynamic
/// shared memory).
constexpr unsigned kSharedLaunchBytes = 8192;
template <class Item> __host__ __device__ constexpr unsigned shared_launch_slots() {
  return sizeof(Item) >= kSharedLaunchBytes ? 1u : unsigned(kSharedLaunchBytes / sizeof(Item));
}
/// Threads per block of dpar-opt's child grid (the block-mapped phase's
/// block size, as for the passes of promote.cuh).
constexpr unsigned kBatchThreads = kDrainThreads;

#if defined(__CUDACC__)
namespace detail {
/// All threads: the slot of this thread's held launch among the block's
/// (~0u when it holds none) and the block's count.
template <class Item> __device__ unsigned count_held(const held_launch<Item> &mine, unsigned &count) {
  __shared__ unsigned n;
  if (nestor::detail::linear_tid() == 0) n = 0;
  __syncthreads();
  const unsigned slot = mine.held ? atomicAdd(&n, 1u) : ~0u;
  __syncthreads();
  count = n;
  __syncthreads(); // `n` is read by all before any later reuse
  return slot;
}
} // namespace detail

/// dbuf-shared on launches: after the parent body, the block runs its threads'
/// held launches (all threads of the block call it). The records go to the
/// shared buffer; when more threads hold one than it has slots, the block
/// runs them in rounds of `slots` records, the later ones waiting in their
/// owners' registers (no heap is needed; dbuf_shared for loop rows has a
/// heap overflow because a delayed row is finished by a replay of its owner,
/// which must come after every round). Within a round the block's threads
/// stride over the child threads of all the round's launches together, so a
/// block of 256 threads is busy even when each launch has 32.
/// `thread(item, threadIdx, blockIdx, blockDim, gridDim)` runs one child thread.
template <class Item, class Thread> __device__ void dbuf_shared_launches(const held_launch<Item> &mine, Thread thread) {
  constexpr unsigned cap = shared_launch_slots<Item>();
  __shared__ alignas(Item) unsigned char slots_raw[cap * sizeof(Item)];
  __shared__ unsigned long long start[cap + 1]; // first child thread of each record, in the round's order
  Item *slots = reinterpret_cast<Item *>(slots_raw);
  const unsigned tid = nestor::detail::linear_tid(), threads = nestor::detail::block_threads();
  unsigned count = 0;
  const unsigned slot = detail::count_held(mine, count);
  for (unsigned first = 0; first < count; first += cap) { // no round when no thread holds a launch
    if (slot != ~0u && slot >= first && slot - first < cap) new (&slots[slot - first]) Item(mine.item());
    __syncthreads();
    const unsigned n = count - first < cap ? count - first : cap;
    if (tid == 0) {
      unsigned long long at = 0;
      for (unsigned k = 0; k < n; ++k) {
        start[k] = at;
        at += detail::launch_threads(slots[k]);
      }
      start[n] = at;
    }
    __syncthreads();
    // A thread's child threads only move forward through the records, so its
    // record is found by advancing a cursor: one comparison per child thread
    // inside a large launch, a few per step across small ones.
    unsigned k = 0;
    for (unsigned long long j = tid; j < start[n]; j += threads) {
      while (start[k + 1] <= j) ++k; // start[k] <= j < start[k + 1] (skips records of no threads)
      const Item &item = slots[k];
      uint3 t, b;
      detail::child_identity(j - start[k], item.nestor_grid, item.nestor_block, t, b);
      thread(item, t, b, item.nestor_block, item.nestor_grid);
    }
    __syncthreads(); // every thread is done with this round's records
  }
}

/// The child grid of dpar-opt: block k runs record k block-mapped (grid
/// stride when the grid is smaller); the last block to finish frees the batch.
template <class Item, class Thread> __device__ void run_launch_batch(const launch_batch<Item> &b, Thread thread) {
  for (unsigned k = blockIdx.x; k < b.count; k += gridDim.x) detail::run_launch_range_in_block(b.items[k], 0, detail::launch_threads(b.items[k]), thread);
  __syncthreads();
  if (nestor::detail::linear_tid() == 0) {
    __threadfence();
    if (atomicAdd(b.done, 1u) == gridDim.x * gridDim.y * gridDim.z - 1) free(b.done);
  }
}

/// dpar-opt on launches: after the parent body, thread 0 makes one device
/// launch for the block's held launches: `launch(batch)` must launch the
/// child grid (run_launch_batch) with batch.count blocks of kBatchThreads.
/// All threads of the block call it.
template <class Item, class Thread, class Launch>
__device__ void dpar_opt_launches(const held_launch<Item> &mine, Thread thread, Launch launch) {
  __shared__ unsigned *header;
  __shared__ int launched;
  unsigned count = 0;
  const unsigned slot = detail::count_held(mine, count);
  if (count == 0) return; // no large launch in this block: no heap, no launch
  // The done counter, then the records (aligned for Item).
  constexpr size_t head = (sizeof(unsigned) + alignof(Item) - 1) / alignof(Item) * alignof(Item);
  if (nestor::detail::linear_tid() == 0) {
    header = static_cast<unsigned *>(malloc(head + size_t(count) * sizeof(Item)));
    if (header) *header = 0;
    launched = 0;
  }
  __syncthreads();
  unsigned *const hdr = header;
  if (!hdr) {
    // No heap: each owner runs its launch itself, as a thread-mapped child would.
    if (slot != ~0u)
      run_launch_in_thread(mine.item().nestor_grid, mine.item().nestor_block,
                           [&](uint3 t, uint3 b, dim3 bd, dim3 gd) { thread(mine.item(), t, b, bd, gd); });
    return;
  }
  Item *items = reinterpret_cast<Item *>(reinterpret_cast<unsigned char *>(hdr) + head);
  if (slot != ~0u) new (&items[slot]) Item(mine.item());
  __syncthreads(); // the block's records are written before thread 0 launches
  if (nestor::detail::linear_tid() == 0) launched = nestor::detail::try_device_launch(launch, launch_batch<Item>{items, hdr, count});
  __syncthreads();
  if (launched) return;
  // The launch failed (e.g. the pending-launch limit) or there is no -rdc.
  for (unsigned k = 0; k < count; ++k) detail::run_launch_range_in_block(items[k], 0, detail::launch_threads(items[k]), thread);
  __syncthreads();
  if (nestor::detail::linear_tid() == 0) free(hdr);
}
#endif // __CUDACC__

} // namespace nestor::tmpl
