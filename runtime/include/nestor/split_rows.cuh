// Long rows split across blocks in the block-mapped pass of dbuf-global and
// dual-queue (nestor/templates.cuh; issue 12's goal on power-law SpMV).
//
// One block per delayed row leaves the few giant rows of a power-law input as
// stragglers: a 350k-nonzero row is ~5,500 strided steps of one 64-thread
// block, long after every other row is done (cuSPARSE balances nonzeros, not
// rows). So between pass 1 and the block-mapped pass a one-block *plan* cuts
// every queued row into chunks of `chunk` iterations:
//   - count_k = ceil(len_k / chunk), at least 1; first_chunk[k] is the
//     exclusive prefix of the counts (first_chunk[n] the total) and
//     item_of[c] the row of chunk c (one load per chunk where a binary search
//     over first_chunk would be ~17 dependent loads);
//   - every chunk of a split row needs a partial slot, so the total must stay
//     within the budget (the pool has one slot per first-pass thread): while
//     it does not, the chunk doubles. A chunk at least as long as the longest
//     row means one chunk per row: nothing is split then, and when no chunk
//     size fits the budget (a test budget below the number of rows) nothing
//     is split either;
//   - when nothing is split the plan writes chunk 0 and the block-mapped pass
//     is exactly the unsplit one (one block per row, rows in queue order).
// The block-mapped pass then takes chunks with a block stride. A row of one
// chunk is reduced and replayed as before. A chunk of a longer row stores its
// partial in its slot, fences, and counts itself in on the row's arrival
// counter (CUDA's threadFenceReduction sample); the last block to arrive
// combines the row's partials IN CHUNK ORDER with `op`, so e.g. a float sum
// has the same bits from run to run whichever block came last, resets the
// counter and replays the row's owner. Chunk boundaries are relative to the
// row's begin, so the bits do not depend on the queue order either.
//
// A slot is 16 bytes (uint4): the host allocates the pool without knowing the
// accumulator type R. An R that is larger, more aligned or not trivially
// copyable is never split (kSplittable<R>, at compile time).
#pragma once
#include <nestor/ops.cuh>

#include <cstddef>
#include <cstring>
#include <cuda/std/type_traits>
#include <cuda_runtime.h>

namespace nestor::tmpl {

/// Iterations per chunk of a split row: 32 strided steps for each of the 64
/// threads of a block-mapped block (kBlockMappedThreads). The block reduction
/// that ends a chunk (three barriers, five shuffles) plus the partial's store,
/// fence and atomic are small against 32 loads per thread, and a 350k row
/// still becomes ~170 chunks, enough to spread over every SM. A power of two:
/// the plan counts chunks with shifts.
constexpr long long kSplitChunk = 2048;

/// Threads of the plan's one block; fewer when the kernel cannot launch that
/// many (its registers or __launch_bounds__), down to kBlockMappedThreads.
constexpr unsigned kPlanThreads = 1024;

/// The split's knobs, defaulted at every generated call site; tests lower
/// them to force long chunk chains and the budget path.
struct split_limits {
  long long chunk = kSplitChunk; ///< iterations per chunk, rounded up to a power of two
  unsigned long long budget = 0; ///< most chunks; 0 or more than the pool holds: one per first-pass thread
};

/// The split's device memory (carved from the queue pool) and the plan's answer.
struct split_view {
  uint4 *partials = nullptr;       ///< one 16-byte slot per chunk
  unsigned *first_chunk = nullptr; ///< per queued row: its first chunk; [n] the total
  unsigned *item_of = nullptr;     ///< per chunk: its row's queue position
  unsigned *arrivals = nullptr;    ///< per row: chunks done (zeroed by the plan and by the last chunk)
  long long *chunk = nullptr;      ///< the plan's chunk size; 0: nothing split (also when no plan ran)
  unsigned *total = nullptr;       ///< the plan's number of chunks
  int chunk_shift = 0;             ///< log2 of the requested chunk size
  unsigned long long budget = 0;   ///< most chunks the plan may make (at most the pool's capacity)
};

/// Whether an accumulator fits a partial slot (else its rows are never split).
template <class R>
inline constexpr bool kSplittable =
    sizeof(R) <= sizeof(uint4) && alignof(R) <= alignof(uint4) && cuda::std::is_trivially_copyable_v<R>;

namespace detail {
/// The smallest s with 2^s >= v (v >= 1), at most 62.
inline int ceil_log2(long long v) {
  int s = 0;
  while (s < 62 && (1ll << s) < v) ++s;
  return s;
}
/// Bytes of the 16-aligned slots, and of the 4-byte arrays, for `cap` first-pass threads.
inline size_t split_slot_bytes(unsigned long long cap) { return size_t(cap) * sizeof(uint4); }
inline size_t split_index_bytes(unsigned long long cap) { return (size_t(cap) * 3 + 1) * sizeof(unsigned); }
/// Points `sp`'s arrays into `slots` (split_slot_bytes) and `index` (split_index_bytes).
inline void carve_split(split_view &sp, void *slots, void *index, unsigned long long cap) {
  sp.partials = static_cast<uint4 *>(slots);
  sp.first_chunk = static_cast<unsigned *>(index);
  sp.item_of = sp.first_chunk + cap + 1;
  sp.arrivals = sp.item_of + cap;
}

#if defined(__CUDACC__)
/// Chunks of a row of `len` iterations at 2^shift each; an empty row still
/// has one (its owner is replayed).
__device__ __forceinline__ unsigned long long chunks_of(long long len, int shift) {
  return len <= 0 ? 1ull : ((unsigned long long)(len - 1) >> shift) + 1ull;
}
/// Live lanes of the calling thread's warp: all, except in a last partial warp.
__device__ __forceinline__ unsigned live_lanes(unsigned tid, unsigned n) {
  const unsigned warp = tid >> 5, warps = (n + 31u) >> 5;
  return (warp == warps - 1 && (n & 31u)) ? ((1u << (n & 31u)) - 1u) : 0xffffffffu;
}
/// Sum over the warp's live lanes, in lane 0.
__device__ __forceinline__ unsigned long long warp_sum(unsigned live, unsigned lane, unsigned long long v) {
  for (unsigned d = 16; d > 0; d >>= 1) {
    const unsigned long long other = __shfl_down_sync(live, v, d);
    if (lane + d < 32u && (live >> (lane + d)) & 1u) v += other;
  }
  return v;
}
/// Exclusive prefix sum of `v` over the block's threads in linear order; every
/// thread gets its prefix and `total`. Every thread of the block calls it.
inline __device__ unsigned long long block_exclusive_scan(unsigned long long v, unsigned long long &total) {
  __shared__ unsigned long long warp_base[32];
  __shared__ unsigned long long sum;
  const unsigned tid = nestor::detail::linear_tid(), n = blockDim.x * blockDim.y * blockDim.z;
  const unsigned lane = tid & 31u, warp = tid >> 5, warps = (n + 31u) >> 5, live = live_lanes(tid, n);
  unsigned long long inclusive = v;
  for (unsigned d = 1; d < 32u; d <<= 1) {
    const unsigned long long other = __shfl_up_sync(live, inclusive, d);
    if (lane >= d) inclusive += other;
  }
  if (((live >> lane) >> 1) == 0) warp_base[warp] = inclusive; // the warp's last live lane
  __syncthreads();
  if (tid == 0) {
    unsigned long long run = 0;
    for (unsigned w = 0; w < warps; ++w) {
      const unsigned long long t = warp_base[w];
      warp_base[w] = run;
      run += t;
    }
    sum = run;
  }
  __syncthreads();
  const unsigned long long r = warp_base[warp] + inclusive - v;
  total = sum;
  __syncthreads(); // the shared words are reused by the next call
  return r;
}

/// The plan (one block; every thread calls it): chunk counts, prefix and
/// chunk -> row map of the n queued rows [begin[k], end[k]), written to `sp`.
/// `splittable`: whether the kernel's accumulator fits a slot.
inline __device__ void plan_split(const long long *begin, const long long *end, unsigned n, unsigned capacity,
                                  const split_view &sp, bool splittable) {
  __shared__ unsigned long long total_at, longest;
  __shared__ int verdict; // 1: split at `shift`; 0: try a chunk twice as long; -1: split nothing
  const unsigned tid = nestor::detail::linear_tid(), nt = blockDim.x * blockDim.y * blockDim.z;
  const unsigned lane = tid & 31u, live = live_lanes(tid, nt);
  if (!splittable || n == 0) {
    if (tid == 0) *sp.chunk = 0;
    return;
  }
  const unsigned long long budget = sp.budget < capacity ? sp.budget : capacity;
  // Each thread takes a contiguous run of rows, so the prefix follows queue order.
  const unsigned long long per = (n + nt - 1) / nt;
  const unsigned long long lo = tid * per < n ? tid * per : n, hi = lo + per < n ? lo + per : n;
  // One read of the queue per chunk size tried; more than one only when the
  // budget is exceeded (rows far longer than the pool has threads).
  int shift = sp.chunk_shift;
  for (;;) {
    if (tid == 0) total_at = longest = 0;
    __syncthreads();
    unsigned long long mine = 0, mx = 0;
    for (unsigned long long k = lo; k < hi; ++k) {
      const long long len = end[k] - begin[k];
      if (len > 0 && (unsigned long long)len > mx) mx = (unsigned long long)len;
      mine += chunks_of(len, shift);
    }
    mine = warp_sum(live, lane, mine);
    if (lane == 0) atomicAdd(&total_at, mine);
    if (mx) atomicMax(&longest, mx);
    __syncthreads();
    if (tid == 0) {
      if ((unsigned long long)(1ll << shift) >= longest || (total_at > budget && shift == 62)) verdict = -1;
      else verdict = total_at <= budget ? 1 : 0;
    }
    __syncthreads();
    const int v = verdict;
    __syncthreads(); // everyone has read `verdict` before thread 0 starts the next round
    if (v < 0) {
      if (tid == 0) *sp.chunk = 0;
      return;
    }
    if (v > 0) break;
    ++shift;
  }
  unsigned long long mine = 0, total = 0;
  for (unsigned long long k = lo; k < hi; ++k) mine += chunks_of(end[k] - begin[k], shift);
  unsigned long long at = block_exclusive_scan(mine, total);
  for (unsigned long long k = lo; k < hi; ++k) {
    const unsigned long long count = chunks_of(end[k] - begin[k], shift);
    sp.first_chunk[k] = unsigned(at);
    for (unsigned long long j = 0; j < count; ++j) sp.item_of[at + j] = unsigned(k);
    sp.arrivals[k] = 0;
    at += count;
  }
  if (tid == 0) {
    sp.first_chunk[n] = unsigned(total);
    *sp.total = unsigned(total);
    *sp.chunk = 1ll << shift;
  }
}

/// One chunk of the block-mapped pass: its row, the row's chunks and the
/// chunk's iterations.
struct chunk_task {
  unsigned item, first, count;
  long long begin, end;
};
__device__ __forceinline__ chunk_task chunk_at(unsigned c, const long long *begin, const long long *end,
                                               const split_view &sp, long long chunk) {
  chunk_task t;
  t.item = sp.item_of[c];
  t.first = sp.first_chunk[t.item];
  t.count = sp.first_chunk[t.item + 1] - t.first;
  const long long b = begin[t.item], e = end[t.item];
  if (t.count == 1) {
    t.begin = b;
    t.end = e;
  } else {
    t.begin = b + (long long)(c - t.first) * chunk;
    t.end = e - t.begin > chunk ? t.begin + chunk : e;
  }
  return t;
}

/// Thread 0 of the block that reduced chunk c of a row of several chunks:
/// stores `partial`; true in the last block to arrive, with `acc` the row's
/// reduction (its partials combined in chunk order).
template <class R, class Op>
__device__ bool arrive(const split_view &sp, const chunk_task &t, unsigned c, R partial, Op op, R &acc) {
  static_assert(kSplittable<R>, "only accumulators that fit a slot are split");
  uint4 slot{};
  memcpy(&slot, &partial, sizeof(R));
  sp.partials[c] = slot;
  __threadfence(); // the partial is visible device-wide before the counter says it is there
  if (atomicAdd(&sp.arrivals[t.item], 1u) != t.count - 1) return false;
  __threadfence(); // and the other blocks' partials are read after their arrivals
  for (unsigned j = 0; j < t.count; ++j) {
    const uint4 u = __ldcg(&sp.partials[t.first + j]); // L2: another SM wrote it
    R v;
    memcpy(&v, &u, sizeof(R));
    acc = j == 0 ? v : op(acc, v);
  }
  sp.arrivals[t.item] = 0; // ready for the next launch of the call site
  return true;
}
#endif // __CUDACC__
} // namespace detail
} // namespace nestor::tmpl
