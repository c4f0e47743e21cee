// Long rows split across blocks in the block-mapped pass of dbuf-global and
// dual-queue (nestor/templates.cuh: power-law rows longer than a block can hold).
//
// One block per delayed row leaves the few giant rows of a power-law input as
// stragglers: a 350k-nonzero row is ~5,500 strided steps of one 64-thread
// block, long after every other row is done (cuSPARSE balances nonzeros, not
// rows). So a row longer than a chunk (kSplitChunk iterations) is cut into
// chunks that different blocks reduce.
//
// The chunks are planned where the row is queued, by the thread that delays
// it (an earlier version planned them in a one-block launch after pass 1; on
// the 500k-row power-law SpMV that launch alone took 0.75 ms at lb_threshold
// 32, as long as the block-mapped pass):
//   - a row of count = ceil(len / chunk) > 1 chunks reserves `count` partial
//     slots [base, base + count) with one atomicAdd on the pool's `reserved`;
//     its chunk 0 is the pass's task k (its queue position, as for a row that
//     is not split) and its chunk j >= 1 the task n + base + j, where n is the
//     queue length (extra_item[base + j] = k says whose chunk it is; entry
//     base is a hole);
//   - the slots are the budget (one per first-pass thread): a row whose
//     reservation runs past it is not split (it marks its reserved entries as
//     holes), so every row is still processed exactly once.
// The block-mapped pass hands out its n + min(reserved, budget) tasks through
// a ticket counter (a block takes the next task when it is done with one, so
// rows of very different lengths balance). A row of one chunk is reduced and
// replayed as before. A chunk of a longer row stores its partial in its slot,
// fences, and counts itself in on the row's arrival counter (CUDA's
// threadFenceReduction sample); the last block to arrive combines the row's
// partials IN CHUNK ORDER with `op`, so e.g. a float sum has the same bits
// from run to run whichever block came last, and replays the row's owner.
// Chunk boundaries are relative to the row's begin, so the bits do not depend
// on the queue order either.
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
/// chunks are counted with shifts.
constexpr long long kSplitChunk = 2048;

/// The split's knobs, defaulted at every generated call site; tests lower
/// them to force long chunk chains and the budget path.
struct split_limits {
  long long chunk = kSplitChunk; ///< iterations per chunk, rounded up to a power of two
  unsigned long long budget = 0; ///< most partial slots; 0 or more than the pool holds: one per first-pass thread
};

/// The split's device memory (carved from the queue pool).
struct split_view {
  uint4 *partials = nullptr;    ///< [budget] one 16-byte slot per chunk of a split row
  unsigned *base = nullptr;     ///< per queued row: its first slot, or kNotSplit
  unsigned *extra_item = nullptr; ///< [budget] the row whose chunk >= 1 a slot holds, or kNotSplit (a hole)
  unsigned *arrivals = nullptr; ///< per queued row: chunks done (zeroed when the row is queued)
  unsigned long long *reserved = nullptr; ///< slots reserved (may run past the budget; 64 bits, so it cannot wrap)
  unsigned long long *tickets = nullptr;  ///< the block-mapped pass's next task
  int chunk_shift = 0;          ///< log2 of the chunk size
  unsigned budget = 0;          ///< slots (at most the pool's capacity)
};
constexpr unsigned kNotSplit = ~0u;

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
inline size_t split_index_bytes(unsigned long long cap) { return size_t(cap) * 3 * sizeof(unsigned); }
/// Points `sp`'s arrays into `slots` (split_slot_bytes) and `index` (split_index_bytes).
inline void carve_split(split_view &sp, void *slots, void *index, unsigned long long cap) {
  sp.partials = static_cast<uint4 *>(slots);
  sp.base = static_cast<unsigned *>(index);
  sp.extra_item = sp.base + cap;
  sp.arrivals = sp.extra_item + cap;
}

/// Chunks of a row of `len` iterations at 2^shift each; an empty row still
/// has one (its owner is replayed). Host too: the tests check the plan with it.
__host__ __device__ inline unsigned long long chunks_of(long long len, int shift) {
  return len <= 0 ? 1ull : ((unsigned long long)(len - 1) >> shift) + 1ull;
}

#if defined(__CUDACC__)

/// The thread that queued row `k` of `len` iterations: reserves its chunks'
/// slots, or marks it as not split (also when the kernel's accumulator does
/// not fit a slot).
__device__ __forceinline__ void plan_row(const split_view &sp, unsigned k, long long len, bool splittable) {
  const unsigned long long count = splittable ? chunks_of(len, sp.chunk_shift) : 1ull;
  if (count <= 1 || count > sp.budget) {
    sp.base[k] = kNotSplit;
    return;
  }
  const unsigned long long base = atomicAdd(sp.reserved, count);
  const bool fits = (unsigned long long)base + count <= sp.budget;
  // A reservation past the budget leaves holes (the pass skips them).
  const unsigned long long stop = fits ? base + count : (base < sp.budget ? sp.budget : base);
  for (unsigned long long s = base; s < stop; ++s) sp.extra_item[s] = fits && s > base ? k : kNotSplit;
  sp.arrivals[k] = 0;
  sp.base[k] = fits ? unsigned(base) : kNotSplit;
}

/// One task of the block-mapped pass: a whole row, or chunk `j` of a split row.
struct chunk_task {
  bool valid = false;
  unsigned item = 0, base = kNotSplit, j = 0, count = 1;
  long long begin = 0, end = 0;
};
/// Task t of n + min(reserved, budget): t < n is row t (or its chunk 0), else
/// chunk j >= 1 of the row recorded in extra_item.
__device__ __forceinline__ chunk_task task_at(unsigned long long t, unsigned n, const long long *begin, const long long *end,
                                              const split_view &sp) {
  chunk_task c;
  if (t < n) {
    c.item = unsigned(t);
  } else {
    const unsigned s = unsigned(t - n);
    c.item = sp.extra_item[s];
    if (c.item == kNotSplit) return c; // a hole
  }
  c.valid = true;
  const long long b = begin[c.item], e = end[c.item];
  c.base = sp.base[c.item];
  if (c.base == kNotSplit) {
    c.begin = b;
    c.end = e;
    return c;
  }
  c.j = t < n ? 0u : unsigned(t - n) - c.base;
  c.count = unsigned(chunks_of(e - b, sp.chunk_shift));
  const long long chunk = 1ll << sp.chunk_shift;
  c.begin = b + (long long)c.j * chunk;
  c.end = e - c.begin > chunk ? c.begin + chunk : e;
  return c;
}

/// Thread 0 of the block that reduced chunk t.j of a split row: stores
/// `partial`; true in the last block to arrive, with `acc` the row's
/// reduction (its partials combined in chunk order).
template <class R, class Op> __device__ bool arrive(const split_view &sp, const chunk_task &t, R partial, Op op, R &acc) {
  static_assert(kSplittable<R>, "only accumulators that fit a slot are split");
  uint4 slot{};
  memcpy(&slot, &partial, sizeof(R));
  sp.partials[t.base + t.j] = slot;
  __threadfence(); // the partial is visible device-wide before the counter says it is there
  if (atomicAdd(&sp.arrivals[t.item], 1u) != t.count - 1) return false;
  __threadfence(); // and the other blocks' partials are read after their arrivals
  for (unsigned j = 0; j < t.count; ++j) {
    const uint4 u = __ldcg(&sp.partials[t.base + j]); // L2: another SM wrote it
    R v;
    memcpy(&v, &u, sizeof(R));
    acc = j == 0 ? v : op(acc, v);
  }
  return true;
}
#endif // __CUDACC__
} // namespace detail
} // namespace nestor::tmpl
