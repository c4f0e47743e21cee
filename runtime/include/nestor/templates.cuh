// Load-balancing templates for irregular loops (Li, Wu, Becchi,
// "Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations",
// II-B, Figure 1): delayed buffers and dual queues.
//
// A rewritten kernel keeps its original body in a `__device__` function that
// takes the thread identity (threadIdx, blockIdx, blockDim, gridDim) as
// parameters and a *phase* object consulted where the irregular loop was:
//
//   if (phase.defer(begin, end)) return;         // the phase took the iteration
//   if (phase.has_result()) acc = op(acc, phase.template result<T>());
//   else for (i = begin; i < end; ++i) ...        // the original loop
//
// The code before the loop reads memory only (the rewrite checks this), so a
// thread whose large iteration was delayed can *replay* its body later with
// the block-computed reduction of that iteration as the loop's result; the
// code after the loop then runs exactly once per thread, as in the original.
//
//   dbuf_shared  one kernel: large iterations (trip count >= threshold) go to a
//                per-block buffer in shared memory; after the thread-mapped
//                pass the whole block reduces each buffered iteration and its
//                owner replays. When the buffer is full, items go to a global
//                overflow the block allocates from the device heap; when that
//                allocation fails, the thread runs its iteration in place.
//   dbuf_global  pass 1 as above, but the buffer is a global queue; a second,
//                block-mapped launch drains it (load redistributed over blocks).
//   dual_queue   pass 1 only classifies: small iterations into one queue, large
//                into another; a thread-mapped launch runs the small queue and
//                a block-mapped launch the large one.
//
// In dbuf-global and dual-queue, a delayed iteration longer than a chunk
// (kSplitChunk) is split across blocks of the block-mapped pass, its partial
// results combined in chunk order (nestor/split_rows.cuh).
//
// Queues are built with a warp-level scan: the threads of a warp that push to
// the same queue take consecutive slots from one atomicAdd (their rank is the
// exclusive prefix count of the warp's ballot).
#pragma once
#include <cooperative_groups.h>
#include <nestor/ops.cuh>
#include <nestor/split_rows.cuh>

#include <cstddef>
#include <cuda_runtime.h>

namespace nestor::tmpl {

/// Block size of the block-mapped passes (the paper's choice, section III-B:
/// blocks larger than lb_THRES leave threads idle).
constexpr unsigned kBlockMappedThreads = 64;

/// Phase of the original behaviour: every iteration runs in place.
struct run_in_place {
  template <class I> __device__ bool defer(I, I) const { return false; }
  __device__ bool has_result() const { return false; }
  template <class T> __device__ T result() const { return T(); }
};

/// Phase of a replay: the delayed iteration's reduction is `value`.
template <class R> struct with_result {
  R value;
  template <class I> __device__ bool defer(I, I) const { return false; }
  __device__ bool has_result() const { return true; }
  template <class T> __device__ T result() const { return T(value); }
};

#if defined(__CUDACC__)
/// Block-mapped processing of one iteration: the reduction with `op` of f(i)
/// for i in [begin, end), computed by every thread of the block (all of them
/// must call it) and returned to all of them.
template <class T, class I, class F, class Op> __device__ T block_reduce_range(I begin, I end, F f, Op op) {
  __shared__ T warp_partials[32];
  __shared__ T total;
  const unsigned tid = nestor::detail::linear_tid(), n = nestor::detail::block_threads();
  T acc = Op::template identity<T>();
  // Unrolled so that four iterations' loads are in flight at once: the
  // block-mapped phase is bound by their latency (gathers such as x[col[i]]).
#pragma unroll 4
  for (I i = begin + I(tid); i < end; i += I(n)) acc = op(acc, T(f(i)));
  // Every thread of the block is here: full-warp shuffles, except in a last
  // partial warp, whose live lanes are the low ones.
  const unsigned lane = tid & 31u, warp = tid >> 5, warps = (n + 31u) >> 5;
  const unsigned live = (warp == warps - 1 && (n & 31u)) ? ((1u << (n & 31u)) - 1u) : 0xffffffffu;
  for (int d = 16; d > 0; d >>= 1) {
    T other = nestor::detail::shfl_down(live, acc, unsigned(d));
    if (lane + unsigned(d) < 32u && (live >> (lane + unsigned(d))) & 1u) acc = op(acc, other);
  }
  if (lane == 0) warp_partials[warp] = acc;
  __syncthreads();
  if (tid == 0) {
    T t = warp_partials[0];
    for (unsigned w = 1; w < warps; ++w) t = op(t, warp_partials[w]);
    total = t;
  }
  __syncthreads();
  T r = total;
  __syncthreads(); // `total` and the partials are reused by the next call
  return r;
}

/// block_reduce_range in the order a block of W threads uses, whatever the
/// calling block's size: virtual lane v folds f(begin + v), f(begin + v + W),
/// ... in order, the lanes of each warp combine as the shuffle tree does, then
/// the warps in order. dpar-opt reduces a delayed row in its child grid (W =
/// kBlockMappedThreads threads) or, when the launch or the batch's allocation
/// fails (which depends on timing: the pending-launch limit, the device heap),
/// in the parent block: both give the same bits.
template <unsigned W, class T, class I, class F, class Op> __device__ T block_reduce_range_as(I begin, I end, F f, Op op) {
  static_assert(W % 32u == 0 && W > 0 && W <= 1024u, "W: whole warps");
  const unsigned n = nestor::detail::block_threads();
  if (n == W) return block_reduce_range<T>(begin, end, f, op);
  __shared__ T lanes[W];
  __shared__ T total;
  const unsigned tid = nestor::detail::linear_tid();
  for (unsigned v = tid; v < W; v += n) {
    T acc = Op::template identity<T>();
    for (I i = begin + I(v); i < end; i += I(W)) acc = op(acc, T(f(i)));
    lanes[v] = acc;
  }
  __syncthreads();
  if (tid == 0) {
    T t = Op::template identity<T>();
    for (unsigned w = 0; w < W / 32u; ++w) {
      T *l = lanes + 32u * w;
      // Step d of the shuffle tree: lane x takes lane x + d's value from before
      // the step (ascending x reads it before it changes).
      for (unsigned d = 16; d > 0; d >>= 1)
        for (unsigned x = 0; x + d < 32u; ++x) l[x] = op(l[x], l[x + d]);
      t = w == 0 ? l[0] : op(t, l[0]);
    }
    total = t;
  }
  __syncthreads();
  T r = total;
  __syncthreads(); // `total` and the lanes are reused by the next call
  return r;
}

// ------------------------------------------------------------------ dbuf-shared

/// Per-block delayed buffer: CAP items in shared memory, the rest in a global
/// overflow allocated per block when the block has more threads than CAP
/// (each thread delays at most one iteration, so blockDim items always fit).
template <class I, class R, int CAP> struct shared_dbuf {
  static_assert(CAP > 0, "the shared buffer needs at least one slot");
  I begin[CAP], end[CAP];
  R result[CAP];
  unsigned count, overflow_cap;
  I *ov_begin, *ov_end;
  R *ov_result;

  /// All threads. Empties the buffer; thread 0 allocates the overflow.
  __device__ void reset() {
    if (nestor::detail::linear_tid() == 0) {
      count = 0;
      overflow_cap = 0;
      ov_begin = ov_end = nullptr;
      ov_result = nullptr;
      const unsigned n = nestor::detail::block_threads();
      if (n > unsigned(CAP)) {
        const unsigned extra = n - unsigned(CAP);
        void *p = malloc(size_t(extra) * (2 * sizeof(I) + sizeof(R)) + alignof(R));
        if (p) {
          ov_begin = static_cast<I *>(p);
          ov_end = ov_begin + extra;
          // R after the 2 * extra indices, aligned for R.
          size_t off = size_t(extra) * 2 * sizeof(I);
          off = (off + alignof(R) - 1) / alignof(R) * alignof(R);
          ov_result = reinterpret_cast<R *>(static_cast<char *>(p) + off);
          overflow_cap = extra;
        }
      }
    }
    __syncthreads();
  }
  __device__ unsigned capacity() const { return unsigned(CAP) + overflow_cap; }
  /// Any thread. The slot of the item, or -1 when neither the buffer nor the
  /// overflow has room (the caller then runs the iteration itself).
  __device__ int push(I b, I e) {
    const unsigned s = atomicAdd(&count, 1u);
    if (s < unsigned(CAP)) {
      begin[s] = b;
      end[s] = e;
      return int(s);
    }
    if (s - unsigned(CAP) < overflow_cap) {
      ov_begin[s - CAP] = b;
      ov_end[s - CAP] = e;
      return int(s);
    }
    return -1;
  }
  /// All threads: the block-mapped phase over every buffered item.
  template <class F, class Op> __device__ void process(F f, Op op) {
    __syncthreads(); // every push is visible
    const unsigned n = count < capacity() ? count : capacity();
    for (unsigned k = 0; k < n; ++k) {
      const bool shared_slot = k < unsigned(CAP);
      const I b = shared_slot ? begin[k] : ov_begin[k - CAP];
      const I e = shared_slot ? end[k] : ov_end[k - CAP];
      const R r = block_reduce_range<R>(b, e, f, op);
      if (nestor::detail::linear_tid() == 0) {
        if (shared_slot) result[k] = r;
        else ov_result[k - CAP] = r;
      }
    }
    __syncthreads();
  }
  __device__ R result_of(int slot) const { return unsigned(slot) < unsigned(CAP) ? result[slot] : ov_result[slot - CAP]; }
  /// All threads, after every owner has read its result.
  __device__ void release() {
    __syncthreads();
    if (nestor::detail::linear_tid() == 0 && ov_begin) free(ov_begin);
  }
};

/// Phase of the thread-mapped pass of dbuf-shared.
template <class Buf> struct defer_to_shared {
  Buf *buf;
  long long threshold;
  int *slot;
  template <class I> __device__ bool defer(I b, I e) const {
    if ((long long)(e) - (long long)(b) < threshold) return false;
    const int s = buf->push(b, e);
    if (s < 0) return false;
    *slot = s;
    return true;
  }
  __device__ bool has_result() const { return false; }
  template <class T> __device__ T result() const { return T(); }
};

/// The whole dbuf-shared kernel: `body(threadIdx, blockIdx, blockDim, gridDim,
/// phase)` runs the original kernel body. Every thread of the block calls it.
template <class I, class R, int CAP, class F, class Op, class Body>
__device__ void dbuf_shared(long long threshold, F f, Op op, Body body) {
  __shared__ shared_dbuf<I, R, CAP> buf;
  buf.reset();
  int slot = -1;
  body(threadIdx, blockIdx, blockDim, gridDim, defer_to_shared<shared_dbuf<I, R, CAP>>{&buf, threshold, &slot});
  buf.process(f, op);
  const R r = slot >= 0 ? buf.result_of(slot) : R();
  buf.release();
  if (slot >= 0) body(threadIdx, blockIdx, blockDim, gridDim, with_result<R>{r});
}

// ------------------------------------------------------------------ dpar-opt

/// A block's delayed iterations for its one child launch (dpar-opt): a
/// device-heap array the child grid frees when its last block is done.
template <class I> struct dpar_item {
  I begin, end;
  uint3 thread;
};
template <class I> struct dpar_batch {
  dpar_item<I> *items;
  unsigned *done; ///< child blocks finished; the last one frees the batch
  unsigned count;
  uint3 block;    ///< the parent block the items belong to
  dim3 block_dim, grid_dim;
};

/// Phase of the thread-mapped pass of dpar-opt: a large iteration is kept in
/// the delaying thread's own `mine` and takes slot `*slot` of the block's
/// batch (each thread delays at most one).
template <class I> struct defer_to_dpar {
  dpar_item<I> *mine;
  unsigned *slot;
  unsigned *count;
  long long threshold;
  __device__ bool defer(I b, I e) const {
    if ((long long)(e) - (long long)(b) < threshold) return false;
    *slot = atomicAdd(count, 1u);
    *mine = dpar_item<I>{b, e, threadIdx};
    return true;
  }
  __device__ bool has_result() const { return false; }
  template <class T> __device__ T result() const { return T(); }
};

/// The whole dpar-opt kernel (the templates paper, Figure 1(e)): the thread-mapped pass delays large iterations, then thread 0
/// makes ONE device launch for the block's batch: `launch(batch)` must launch
/// the child kernel (dpar_opt_child) with batch.count blocks. CDP2: the parent
/// never waits for the child; the child finishes each delayed row itself.
/// The batch lives on the device heap, allocated only by blocks that delayed
/// something (malloc per block was most of dpar-opt's time on graphs where few
/// blocks have a large row). When it cannot be allocated, when the launch
/// fails, or when the file is built without -rdc (no __CUDACC_RDC__), the block
/// reduces the batch itself, in the child's order (block_reduce_range_as): a
/// delayed row's bits do not depend on which of these happened.
template <class I, class R, class F, class Op, class Body, class Launch>
__device__ void dpar_opt(long long threshold, F f, Op op, Body body, Launch launch) {
  __shared__ dpar_item<I> *items;
  __shared__ unsigned *header;
  __shared__ unsigned count;
  __shared__ int launched;
  const unsigned tid = nestor::detail::linear_tid();
  if (tid == 0) {
    count = 0;
    launched = 0;
    header = nullptr;
    items = nullptr;
  }
  __syncthreads();
  dpar_item<I> mine{};
  unsigned slot = ~0u;
  body(threadIdx, blockIdx, blockDim, gridDim, defer_to_dpar<I>{&mine, &slot, &count, threshold});
  __syncthreads();
  if (count == 0) return; // the usual case on regular inputs: no heap, no launch
  if (tid == 0) {
    header = static_cast<unsigned *>(malloc(sizeof(unsigned) * 2 + sizeof(dpar_item<I>) * count));
    items = header ? reinterpret_cast<dpar_item<I> *>(header + 2) : nullptr;
    if (header) header[0] = 0;
  }
  __syncthreads();
  if (!header) {
    // No heap left: the block reduces the delayed rows itself, one at a time,
    // in the child's order (the same bits as when the child runs).
    __shared__ dpar_item<I> current;
    for (unsigned k = 0; k < count; ++k) {
      if (slot == k) current = mine;
      __syncthreads();
      const R r = block_reduce_range_as<kBlockMappedThreads, R>(current.begin, current.end, f, op);
      if (slot == k) body(threadIdx, blockIdx, blockDim, gridDim, with_result<R>{r});
    }
    return;
  }
  if (slot != ~0u) items[slot] = mine;
  __syncthreads();
  if (tid == 0) launched = nestor::detail::try_device_launch(launch, dpar_batch<I>{items, header, count, blockIdx, blockDim, gridDim});
  __syncthreads();
  if (launched) return;
  // The launch failed (e.g. the pending-launch limit): block-mapped here, in
  // the child's order (the same bits as when the launch succeeds).
  for (unsigned k = 0; k < count; ++k) {
    const R r = block_reduce_range_as<kBlockMappedThreads, R>(items[k].begin, items[k].end, f, op);
    if (tid == 0) body(items[k].thread, blockIdx, blockDim, gridDim, with_result<R>{r});
  }
  __syncthreads();
  if (tid == 0) free(header);
}

/// The child kernel of dpar-opt: block k reduces delayed iteration k and its
/// thread 0 finishes the owner's row; the last block frees the batch.
template <class R, class I, class F, class Op, class Body>
__device__ void dpar_opt_child(const dpar_batch<I> &b, F f, Op op, Body body) {
  for (unsigned k = blockIdx.x; k < b.count; k += gridDim.x) {
    const R r = block_reduce_range_as<kBlockMappedThreads, R>(b.items[k].begin, b.items[k].end, f, op);
    if (nestor::detail::linear_tid() == 0) body(b.items[k].thread, b.block, b.block_dim, b.grid_dim, with_result<R>{r});
  }
  if (nestor::detail::linear_tid() == 0) {
    __threadfence();
    if (atomicAdd(b.done, 1u) == gridDim.x * gridDim.y * gridDim.z - 1) free(b.done);
  }
}
#endif // __CUDACC__

// ------------------------------------------------------- dbuf-global, dual-queue

/// A global work queue: the owner of each item is the linear thread id in the
/// first pass's grid; begin/end are the iteration's range.
struct queue_view {
  unsigned long long *owner = nullptr;
  long long *begin = nullptr, *end = nullptr;
  unsigned *count = nullptr;
  unsigned capacity = 0;
};

enum class phase_kind : int {
  in_place = 0, ///< the original kernel (also what a launch with no state gets)
  delay_large,  ///< dbuf-global pass 1: large iterations go to `large`
  classify,     ///< dual-queue pass 1: every iteration goes to `small` or `large`
  run_small,    ///< thread-mapped pass over `small`
  run_large,    ///< block-mapped pass over `large`, long rows split in chunks (nestor/split_rows.cuh)
};

/// The extra kernel parameter of a rewritten kernel (defaulted: a launch that
/// was not rewritten runs the original code).
struct launch_state {
  phase_kind phase = phase_kind::in_place;
  long long threshold = 0;
  queue_view small, large;
  dim3 grid, block; ///< of pass 1, the identity every replay restores
  split_view split; ///< chunks of the long rows of `large`
};

#if defined(__CUDACC__)
namespace detail {
/// Pushes one item; threads of a warp pushing to the same queue share one
/// atomicAdd (exclusive prefix count of the group's ballot). -1 when full.
__device__ __forceinline__ long long queue_push(const queue_view &q, unsigned long long owner, long long b, long long e) {
  namespace cg = cooperative_groups;
  auto active = cg::coalesced_threads();
  auto same = cg::labeled_partition(active, (unsigned)(reinterpret_cast<size_t>(q.count) >> 2));
  unsigned base = 0;
  if (same.thread_rank() == 0) base = atomicAdd(q.count, same.size());
  base = same.shfl(base, 0);
  const unsigned s = base + same.thread_rank();
  if (s >= q.capacity) return -1;
  q.owner[s] = owner;
  q.begin[s] = b;
  q.end[s] = e;
  return s;
}
__device__ __forceinline__ unsigned long long linear_thread(uint3 t, uint3 b, dim3 bd, dim3 gd) {
  const unsigned long long block = b.x + (unsigned long long)gd.x * (b.y + (unsigned long long)gd.y * b.z);
  const unsigned long long in_block = t.x + (unsigned long long)bd.x * (t.y + (unsigned long long)bd.y * t.z);
  return block * (unsigned long long)(bd.x * bd.y * bd.z) + in_block;
}
__device__ __forceinline__ void identity_of(unsigned long long owner, dim3 bd, dim3 gd, uint3 &t, uint3 &b) {
  const unsigned long long per_block = (unsigned long long)bd.x * bd.y * bd.z;
  unsigned long long blk = owner / per_block, in = owner % per_block;
  t = make_uint3(unsigned(in % bd.x), unsigned(in / bd.x % bd.y), unsigned(in / ((unsigned long long)bd.x * bd.y)));
  b = make_uint3(unsigned(blk % gd.x), unsigned(blk / gd.x % gd.y), unsigned(blk / ((unsigned long long)gd.x * gd.y)));
}
__device__ __forceinline__ unsigned queued(const queue_view &q) { return *q.count < q.capacity ? *q.count : q.capacity; }
} // namespace detail

/// Phase of pass 1 of dbuf-global (classify == false) or dual-queue (true).
/// A row queued as large also plans its chunks (nestor/split_rows.cuh);
/// `splittable`: whether the kernel's accumulator fits a partial slot.
struct defer_to_queues {
  const launch_state *st;
  unsigned long long owner;
  bool classify;
  bool splittable;
  template <class I> __device__ bool defer(I b, I e) const {
    const bool large = (long long)(e) - (long long)(b) >= st->threshold;
    if (!large && !classify) return false;
    const long long s = detail::queue_push(large ? st->large : st->small, owner, (long long)b, (long long)e);
    if (s < 0) return false;
    if (large) detail::plan_row(st->split, unsigned(s), (long long)(e) - (long long)(b), splittable);
    return true;
  }
  __device__ bool has_result() const { return false; }
  template <class T> __device__ T result() const { return T(); }
};

/// The block-mapped pass: every queued row reduced by a block (or, when it
/// was split, by several; nestor/split_rows.cuh), then its owner replayed by
/// thread 0 of the block that finished it. Blocks take tasks from a ticket
/// counter, so that rows of very different lengths balance.
template <class R, class F, class Op, class Body>
__device__ void run_large(const launch_state &st, F f, Op op, Body body) {
  __shared__ unsigned long long task;
  const bool leader = nestor::detail::linear_tid() == 0;
  auto replay = [&](unsigned k, R r) {
    uint3 t, b;
    detail::identity_of(st.large.owner[k], st.block, st.grid, t, b);
    body(t, b, st.block, st.grid, with_result<R>{r});
  };
  const unsigned n = detail::queued(st.large);
  const unsigned long long reserved = *st.split.reserved;
  const unsigned long long total = n + (reserved < st.split.budget ? reserved : st.split.budget);
  for (;;) {
    if (leader) task = atomicAdd(st.split.tickets, 1ull);
    __syncthreads();
    const unsigned long long t = task;
    __syncthreads(); // every thread has read `task` before the leader takes the next
    if (t >= total) return;
    const detail::chunk_task c = detail::task_at(t, n, st.large.begin, st.large.end, st.split);
    if (!c.valid) continue; // a hole: a reservation that did not fit the budget
    const R r = block_reduce_range<R>(c.begin, c.end, f, op);
    if (!leader) continue;
    if constexpr (kSplittable<R>) {
      R row = r;
      if (c.base == kNotSplit || detail::arrive(st.split, c, r, op, row)) replay(c.item, row);
    } else {
      replay(c.item, r);
    }
  }
}

/// The whole kernel of dbuf-global and dual-queue: dispatches on the phase.
/// Every thread of the block calls it.
template <class R, class F, class Op, class Body>
__device__ void dispatch(const launch_state &st, F f, Op op, Body body) {
  switch (st.phase) {
  case phase_kind::in_place:
    body(threadIdx, blockIdx, blockDim, gridDim, run_in_place{});
    return;
  case phase_kind::delay_large:
  case phase_kind::classify:
    body(threadIdx, blockIdx, blockDim, gridDim,
         defer_to_queues{&st, detail::linear_thread(threadIdx, blockIdx, blockDim, gridDim),
                         st.phase == phase_kind::classify, kSplittable<R>});
    return;
  case phase_kind::run_small: {
    const unsigned long long stride = (unsigned long long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z;
    const unsigned n = detail::queued(st.small);
    for (unsigned long long k = detail::linear_thread(threadIdx, blockIdx, blockDim, gridDim); k < n; k += stride) {
      uint3 t, b;
      detail::identity_of(st.small.owner[k], st.block, st.grid, t, b);
      body(t, b, st.block, st.grid, run_in_place{});
    }
    return;
  }
  case phase_kind::run_large:
    run_large<R>(st, f, op, body);
    return;
  }
}
#endif // __CUDACC__

// ------------------------------------------------------------------ host side

/// Device memory behind the queues of one call site, grown on demand
/// (cudaMalloc; never managed memory). Launches of one call site share it, so
/// they must be ordered (the rewrite accepts default-stream launches only).
/// Per first-pass thread: a slot in each queue and the split's partial slot,
/// row base, chunk entry and arrival counter (nestor/split_rows.cuh).
class queue_pool {
public:
  ~queue_pool() { release(); }
  /// Queues and split arrays for `items` threads, the counters zeroed on
  /// `stream`; false when the allocation failed (the caller then launches
  /// the original kernel).
  bool prepare(unsigned long long items, cudaStream_t stream, queue_view &small, queue_view &large, split_view &split) {
    if (items > 0xffffffffull - 1) return false;
    if (items > cap_) {
      release();
      const size_t bytes = detail::split_slot_bytes(items) + size_t(items) * kQueueBytes + sizeof(header) +
                           detail::split_index_bytes(items);
      if (cudaMalloc(&mem_, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        mem_ = nullptr;
        return false;
      }
      cap_ = items;
    }
    // The 16-byte slots first (cudaMalloc's alignment), then the 8-byte
    // arrays, the header, the 4-byte arrays.
    char *p = static_cast<char *>(mem_);
    char *slots = p;
    p += detail::split_slot_bytes(cap_);
    auto carve = [&](queue_view &q) {
      q.owner = reinterpret_cast<unsigned long long *>(p);
      p += cap_ * sizeof(unsigned long long);
      q.begin = reinterpret_cast<long long *>(p);
      p += cap_ * sizeof(long long);
      q.end = reinterpret_cast<long long *>(p);
      p += cap_ * sizeof(long long);
      q.capacity = unsigned(items);
    };
    carve(small);
    carve(large);
    header *h = reinterpret_cast<header *>(p);
    p += sizeof(header);
    small.count = &h->small_count;
    large.count = &h->large_count;
    split.reserved = &h->reserved;
    split.tickets = &h->tickets;
    detail::carve_split(split, slots, p, cap_);
    return cudaMemsetAsync(h, 0, sizeof(header), stream) == cudaSuccess;
  }

private:
  struct header {
    unsigned small_count, large_count;
    unsigned long long reserved, tickets;
  };
  static constexpr size_t kQueueBytes = 2 * (sizeof(unsigned long long) + 2 * sizeof(long long));
  void release() {
    if (mem_) cudaFree(mem_);
    mem_ = nullptr;
    cap_ = 0;
  }
  void *mem_ = nullptr;
  unsigned long long cap_ = 0;
};

/// Blocks of the block-mapped pass: enough to fill the device (32 resident
/// 64-thread blocks per SM are its 2,048 threads); each takes tasks from the
/// ticket counter until none is left.
inline unsigned block_mapped_grid() {
  static unsigned blocks = [] {
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
      sms = 80;
    return unsigned(sms) * 32u;
  }();
  return blocks;
}

/// Launches a dbuf-global (dual = false) or dual-queue (dual = true) kernel:
/// `launch(grid, block, shmem, state)` must launch the rewritten kernel with
/// that configuration and state (a lambda at the call site; the pool is one
/// per call site, i.e. per lambda type). `limits`: the split's chunk size and
/// budget (tests lower them; generated code keeps the defaults).
template <class Launch>
void launch_templates(bool dual, dim3 grid, dim3 block, size_t shmem, long long threshold, Launch launch,
                      split_limits limits = {}) {
  static queue_pool pool;
  launch_state st;
  st.grid = grid;
  st.block = block;
  st.threshold = threshold;
  const unsigned long long threads =
      (unsigned long long)grid.x * grid.y * grid.z * (unsigned long long)block.x * block.y * block.z;
  if (!pool.prepare(threads, 0, st.small, st.large, st.split)) {
    launch(grid, block, shmem, st); // in_place: the original kernel
    return;
  }
  st.split.chunk_shift = detail::ceil_log2(limits.chunk > 1 ? limits.chunk : 1);
  st.split.budget = unsigned(limits.budget == 0 || limits.budget > threads ? threads : limits.budget);
  st.phase = dual ? phase_kind::classify : phase_kind::delay_large;
  launch(grid, block, shmem, st);
  if (dual) {
    st.phase = phase_kind::run_small;
    launch(grid, block, shmem, st);
  }
  st.phase = phase_kind::run_large;
  launch(dim3(block_mapped_grid()), dim3(kBlockMappedThreads), 0, st);
}

} // namespace nestor::tmpl
