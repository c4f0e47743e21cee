// Merge-path split of a CSR-like loop (Merrill and Garland, "Merge-based
// Parallel Sparse Matrix-Vector Multiplication", SC'16): the work of the
// irregular loops of a one-thread-per-row kernel is split evenly by
// *iterations*, not by rows.
//
// The n rows and their nnz iterations form a merge path of n + nnz steps
// ("diagonals"): the row-end offsets P[1..n] merged with the iteration
// indices P[0] .. P[n]-1. Row r's iterations are the diagonals
// r + P[r] - P[0] .. r + P[r+1] - P[0] - 1, its end the diagonal r + P[r+1] - P[0].
//
//   merge pass   a persistent grid of G blocks (SM count x resident blocks):
//                block b owns the diagonals [b*D, (b+1)*D), D = ceil((n + nnz) / G).
//                A block-wide k-ary search on P finds where its range starts;
//                it then walks it in chunks of up to kBlock * kItems diagonals
//                (fewer when kWindow rows end in one): the chunk's row ends are
//                staged in shared memory, its iterations' values f(i) computed
//                with coalesced loads (aligned to 32 iterations) into shared
//                memory, and each thread consumes kItems diagonals. A row that ends in
//                the block gets its value there (the part before the thread,
//                from a segmented scan over the block's threads, combined in a
//                fixed order); the part of the row the block holds when its
//                range ends is the block's carry-out.
//   row pass     the original kernel, whose loop is replaced by
//                row_result(P[q], P[q+1], q): the row's value from the merge
//                pass, combined with the carry-outs of the blocks the row
//                crossed, in block order.
//   fused        (when the rewrite passes the kernel's per-row epilogue and
//                the original grid has exactly one thread per row) no row
//                pass: a row that ends in the block it began in is finished
//                there, by the thread that ends it (the epilogue runs with
//                the row's value); the one row per block that began in an
//                earlier block is finished after every block is done, by the
//                last block to finish, combining the carry-outs in block
//                order as the row pass would (the same bits).
//
// Every combination happens in an order fixed by the matrix and G (not by
// timing): results are the same bits from run to run on the same device. The
// split reassociates the reduction, so a floating-point sum may differ from
// the sequential loop in the last bits.
#pragma once
#include <nestor/ops.cuh>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda/std/type_traits>

namespace nestor::mp {

// The shape measured best on an H200 (bench/spmv/mp_tune.cu; the sweeps are
// in docs/rewrites-merge-path.md): 128 threads x 12 diagonals, 7 resident
// blocks (72 registers: the fused fix-up loads 4 records per thread per
// phase, not 8, which needed 80 and spilled), a row-end window of 512 rows
// (8 KiB of shared memory per block: the rest of the SM is L1 for f's gathers).
#ifndef NESTOR_MP_ITEMS
#define NESTOR_MP_ITEMS 12
#endif
#ifndef NESTOR_MP_MIN_BLOCKS
#define NESTOR_MP_MIN_BLOCKS 7
#endif
#ifndef NESTOR_MP_FIX
#define NESTOR_MP_FIX 4
#endif
#ifndef NESTOR_MP_WINDOW
#define NESTOR_MP_WINDOW 512
#endif
constexpr int kBlock = 128;                       ///< threads of a merge block
constexpr int kItems = NESTOR_MP_ITEMS;           ///< diagonals per thread per chunk
constexpr int kChunk = kBlock * kItems;           ///< diagonals per chunk (at most)
constexpr int kMinBlocks = NESTOR_MP_MIN_BLOCKS;  ///< resident blocks per SM asked of the compiler
constexpr int kFix = NESTOR_MP_FIX;               ///< fused fix-up: records per thread loaded together
constexpr int kWindow = NESTOR_MP_WINDOW;         ///< rows whose ends a chunk stages (a chunk ends after them)

/// What the merge pass leaves for the row pass (device pointers; a
/// default-constructed state means "no merge pass ran": the row pass runs
/// its loop as written).
struct state {
  void *rows = nullptr;        ///< T[n]: the value of each row over the block where it ends
  void *carry = nullptr;       ///< T[G]: each block's carry-out
  long long *span = nullptr;   ///< D, written by the merge pass
  // Fused mode (the merge kernel runs the epilogue; no row pass, rows unused):
  void *tail = nullptr;           ///< T[G]: block b's part of the row open at its start, when that row ends in b
  long long *tailRow = nullptr;   ///< [G]: that row, or -1
  long long *tailFrom = nullptr;  ///< [G]: the block where that row began
  unsigned *done = nullptr;       ///< blocks finished; the last resets it to 0
  bool fused = false;
  __host__ __device__ bool ready() const { return rows != nullptr; }

  /// The value of row q (iterations [begin, end)), combined in block order.
  /// `base` is P[0] (almost always 0).
  template <class T, class I, class Op>
  __device__ __forceinline__ T row_result(I begin, I end, long long q, Op op, I base = I(0)) const {
    const long long d = *span;
    const long long b0 = (q + (long long)(begin - base)) / d, b1 = (q + (long long)(end - base)) / d;
    T v = static_cast<const T *>(rows)[q];
    if (b0 < b1) {
      const T *c = static_cast<const T *>(carry);
      T pre = c[b0];
      for (long long b = b0 + 1; b < b1; ++b) pre = op(pre, c[b]);
      v = op(pre, v);
    }
    return v;
  }
};

namespace detail {

/// Number of rows whose end lies before diagonal `d` (the merge-path
/// coordinate), by a k-ary search with the whole block: each round samples
/// up to kBlock points of P and narrows the range to one gap between samples.
/// Every thread of the block calls it and gets the same answer.
template <int Block, class Ptr>
__device__ __forceinline__ long long block_search(Ptr P, long long n, long long base, long long d) {
  long long lo = 0, hi = n; // the answer is in [lo, hi]
  while (lo < hi) {
    const long long len = hi - lo;
    const long long m = len < Block ? len : Block;
    const int t = threadIdx.x;
    bool pred = false;
    if (t < m) {
      const long long x = lo + (len * (t + 1)) / m - 1;
      pred = (long long)P[x + 1] - base + x < d;
    }
    const long long cnt = __syncthreads_count(pred);
    const long long nlo = cnt > 0 ? lo + (len * cnt) / m : lo;          // x_{cnt-1} + 1
    const long long nhi = cnt < m ? lo + (len * (cnt + 1)) / m - 1 : hi; // x_cnt
    lo = nlo;
    hi = nhi;
  }
  return lo;
}

/// Count of k in [0, lim) with end[k] + k < d (rows of the window that end
/// before the chunk-relative diagonal d), by binary search in shared memory.
__device__ __forceinline__ int window_search(const int *end, int lim, int d) {
  int lo = 0, hi = lim;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (end[mid] + mid < d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

} // namespace detail

/// No per-row epilogue: the row pass (the original kernel) finishes the rows.
struct no_epilogue {
  template <class T> __device__ void operator()(long long, T) const {}
};

/// The merge pass, called by every thread of a block of `Block` threads
/// (kBlock unless tuned) of the grid `launch` gives. P: the offsets (n + 1
/// entries), f(i): the value of iteration i, op: the reduction. `Items`:
/// diagonals per thread per chunk. epi(q, v), when given, is the original
/// kernel's thread for row q from its loop on, the loop's value being v: with
/// `s.fused` it runs once per row here, and no row pass follows.
template <class T, int Block = kBlock, int Items = kItems, int Window = kWindow, int Fix = kFix, class Ptr, class F,
          class Op, class E = no_epilogue>
__device__ __forceinline__ void merge_rows(const state &s, Ptr P, long long n, F f, Op op, E epi = {}) {
  constexpr bool kEpilogue = !cuda::std::is_same<E, no_epilogue>::value;
  constexpr int kBlock = Block, kItems = Items, kChunk = Block * Items;
  constexpr int kWin = Window < kChunk ? Window : kChunk;
  static_assert(Block % 32 == 0 && kWin > 0, "whole warps, a window of at least one row");
  using I = cuda::std::remove_cv_t<cuda::std::remove_reference_t<decltype(P[0])>>;
  // Within a chunk everything is relative to its start (a0, b0): 32-bit.
  __shared__ int s_end[kWin]; // row a0 + 1 + k ends before iteration b0 + s_end[k]
  __shared__ T s_val[kChunk];
  __shared__ T s_wv[kBlock / 32];
  __shared__ int s_wk[kBlock / 32];
  T *rows = static_cast<T *>(s.rows);
  T *carry = static_cast<T *>(s.carry);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const long long base = (long long)P[0];
  const long long nnz = (long long)P[n] - base;
  const long long total = n + nnz;
  const long long G = gridDim.x;
  const long long D = (total + G - 1) / G;
  if (blockIdx.x == 0 && tid == 0) *s.span = D;
  long long dBeg = (long long)blockIdx.x * D, dLim = dBeg + D;
  if (dBeg > total) dBeg = total;
  if (dLim > total) dLim = total;
  const T identity = Op::template identity<T>();
  // The block's start coordinate; the carry enters at identity.
  long long a0 = detail::block_search<kBlock>(P, n, base, dBeg);
  long long cr = a0;
  T cv = identity;
  // Fused: the row open at the block's start, if it began in an earlier
  // block (its value needs their carry-outs: finished by the last block).
  __shared__ long long s_tailRow;
  __shared__ T s_tailVal;
  const bool fused = kEpilogue && s.fused;
  long long openRow = -1, openFrom = 0;
  if (fused) {
    if (a0 < n) {
      const long long start = a0 + ((long long)P[a0] - base); // the row's first diagonal
      if (start < dBeg) {
        openRow = a0;
        openFrom = start / D;
      }
    }
    if (tid == 0) s_tailRow = -1; // written below only after a barrier
  }
  // Row q's value over this block is v: finish it, keep it for the last
  // block, or leave it to the row pass.
  auto finish = [&](long long q, T v) {
    if (!fused) {
      rows[q] = v;
    } else if (q == openRow) {
      s_tailRow = q;
      s_tailVal = v;
    } else {
      epi(q, v);
    }
  };
  // Each chunk's iterations' values: at most min(dn, nnz - b0) of them (the
  // few beyond the chunk's end are dropped), loaded before the chunk's row
  // ends are known: both loads are in flight together. (Loading chunk k + 1's
  // values during chunk k's walk was measured no faster on an H200: 8 more
  // registers, fewer resident blocks; docs/rewrites-merge-path.md.)
  T tmp[kItems];
  for (long long d0 = dBeg; d0 < dLim;) {
    int dn = int(d0 + kChunk < dLim ? kChunk : dLim - d0); // diagonals of this chunk (or fewer: below)
    const long long b0 = d0 - a0; // iteration index (relative to base) at the chunk start
    const int nvMax = int(nnz - b0 < dn ? nnz - b0 : dn);
    // The loads start at a multiple of 32 iterations, so that a warp's load
    // of a 4-byte array is one 128-byte line, not two (the kernel is bound by
    // L2 requests: 4-5% faster on the power-law matrices); the `skew` values
    // that do not fit are loaded by the threads that skip the first.
    const int skew = int((unsigned long long)(base + b0) & 31u);
    T extra = identity;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int j = tid + i * kBlock - skew;
      if (j >= 0 && j < nvMax) tmp[i] = f((I)(base + b0 + j));
    }
    if (tid < skew && kChunk - skew + tid < nvMax) extra = f((I)(base + b0 + kChunk - skew + tid));
    // Stage the row ends of the window, kBlock at a time, until one of them
    // ends after the chunk. end[k] + k (row k's end diagonal) increases with
    // k, so the rows of a round that end in the chunk are a prefix: the
    // barrier's count gives a1, the rows ending in the chunk.
    const int wmax = int(n - a0 < kWin ? n - a0 : kWin);
    int loaded = 0, a1 = 0;
    for (;;) {
      const int k = loaded + tid;
      bool endsIn = false;
      if (k < wmax) {
        const int e = int((long long)P[a0 + 1 + k] - base - b0);
        s_end[k] = e;
        endsIn = e + k < dn;
      }
      const int got = loaded + kBlock < wmax ? kBlock : wmax - loaded;
      const int cnt = __syncthreads_count(endsIn);
      loaded += got;
      if (cnt < got || loaded >= wmax) {
        a1 = loaded - got + cnt;
        break;
      }
    }
    // The window is full and every row in it ends in the chunk: the chunk
    // ends with the window's last row (right after its end diagonal).
    if (a1 == kWin && n - a0 > kWin) dn = s_end[kWin - 1] + kWin;
    const int nv = dn - a1; // iterations in the chunk
    // This thread's range (chunk-relative); rows a1 and later end at or after dn.
    const int dt = tid * kItems < dn ? tid * kItems : dn;
    const int de = dt + kItems < dn ? dt + kItems : dn;
    int a = detail::window_search(s_end, a1 < dt ? a1 : dt, dt);
    int b = dt - a;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int j = tid + i * kBlock - skew;
      if (j >= 0 && j < nv) s_val[j] = tmp[i];
    }
    if (tid < skew && kChunk - skew + tid < nv) s_val[kChunk - skew + tid] = extra;
    __syncthreads();
    // Walk this thread's diagonals.
    T acc = identity;
    int firstRow = -1;
    T firstVal = identity;
    for (int dd = dt; dd < de; ++dd) {
      if (b < s_end[a]) { // (a < a1 <= kWin here: a thread reaches a1 only at its range's end)
        acc = op(acc, s_val[b]);
        ++b;
      } else {
        if (firstRow < 0) {
          firstRow = a;
          firstVal = acc;
        } else {
          finish(a0 + a, acc);
        }
        acc = identity;
        ++a;
      }
    }
    // Segmented inclusive scan of the threads' carry-outs (key: the row at
    // the thread's end; keys do not decrease with the thread index): within
    // the warp by shuffles, then across warps from their last lanes, always
    // combined from the left in the same order.
    const int key = a;
    T v = acc;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      T vv = __shfl_up_sync(0xffffffffu, v, off);
      int kk = __shfl_up_sync(0xffffffffu, key, off);
      if (lane >= off && kk == key) v = op(vv, v);
    }
    if (lane == 31) {
      s_wk[warp] = key;
      s_wv[warp] = v;
    }
    __syncthreads();
    // x with the warps before w whose last key is k folded in front of it.
    auto fold = [&](int w, int k, T x) {
      for (int w2 = w - 1; w2 >= 0 && s_wk[w2] == k; --w2) x = op(s_wv[w2], x);
      return x;
    };
    v = fold(warp, key, v);
    T prevV = __shfl_up_sync(0xffffffffu, v, 1);
    int prevK = __shfl_up_sync(0xffffffffu, key, 1);
    if (lane == 0 && warp > 0) {
      prevK = s_wk[warp - 1];
      prevV = fold(warp - 1, prevK, s_wv[warp - 1]);
    }
    // The first row this thread ends: what the chunk's carry and the earlier
    // threads hold of it, then this thread's part.
    if (firstRow >= 0) {
      bool has = false;
      T pre = identity;
      if (cr == a0 + firstRow) {
        pre = cv;
        has = true;
      }
      if (tid > 0 && prevK == firstRow) {
        pre = has ? op(pre, prevV) : prevV;
        has = true;
      }
      finish(a0 + firstRow, has ? op(pre, firstVal) : firstVal);
    }
    // The carry into the next chunk: the last thread's value.
    const int lastW = kBlock / 32 - 1;
    const long long lk = a0 + s_wk[lastW];
    const T lv = fold(lastW, s_wk[lastW], s_wv[lastW]);
    cv = cr == lk ? op(cv, lv) : lv;
    cr = lk;
    a0 += a1;
    d0 += dn;
    // No barrier here: the next chunk writes s_end and s_val only after
    // every thread has passed the barrier above, and s_wk/s_wv two barriers later.
  }
  if (!fused) {
    if (tid == 0) carry[blockIdx.x] = cv;
    return;
  }
  // Fused: publish the carry-out and the open row's part, then the last block
  // to finish runs the epilogue of every row that began in an earlier block
  // than it ended in: the carry-outs of the blocks it crossed, then its part
  // in the block where it ends, combined in block order (row_result's order).
  __shared__ bool s_last;
  __syncthreads(); // s_tailRow, s_tailVal
  if (tid == 0) {
    carry[blockIdx.x] = cv;
    s.tailRow[blockIdx.x] = s_tailRow;
    s.tailFrom[blockIdx.x] = openFrom; // (openRow and openFrom are the same in every thread)
    static_cast<T *>(s.tail)[blockIdx.x] = s_tailVal;
    __threadfence();
    s_last = atomicAdd(s.done, 1u) == unsigned(gridDim.x) - 1u;
  }
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  // The last block: Fix blocks' records per thread at a time, each phase's
  // loads issued together (a chain of dependent loads per record would make
  // this tail, which runs after every other block, a few microseconds long).
  const volatile long long *tailRow = s.tailRow, *tailFrom = s.tailFrom;
  const volatile T *tail = static_cast<const volatile T *>(s.tail);
  const volatile T *carried = carry;
  for (long long b00 = 0; b00 < G; b00 += (long long)kBlock * Fix) {
    long long q[Fix], from[Fix];
    T part[Fix], pre[Fix];
#pragma unroll
    for (int u = 0; u < Fix; ++u) {
      const long long b = b00 + tid + (long long)u * kBlock;
      q[u] = b < G ? tailRow[b] : -1;
      from[u] = b < G ? tailFrom[b] : 0;
      part[u] = b < G ? T(tail[b]) : identity;
    }
#pragma unroll
    for (int u = 0; u < Fix; ++u) pre[u] = q[u] >= 0 ? T(carried[from[u]]) : identity;
#pragma unroll
    for (int u = 0; u < Fix; ++u) {
      if (q[u] < 0) continue;
      const long long b = b00 + tid + (long long)u * kBlock;
      T v = pre[u];
      for (long long k = from[u] + 1; k < b; ++k) v = op(v, T(carried[k])); // rows over more than two blocks
      epi(q[u], op(v, part[u]));
    }
  }
  if (tid == 0) *s.done = 0; // for the next launch (stream-ordered after this one)
}

// ---------------------------------------------------------------- host side

/// Device scratch for the merge pass, kept between launches and grown when a
/// launch needs more (never shrunk; freed at exit).
inline void *scratch(size_t bytes) {
  static void *buf = nullptr;
  static size_t cap = 0;
  if (bytes > cap) {
    if (buf) cudaFree(buf);
    buf = nullptr;
    cap = 0;
    if (cudaMalloc(&buf, bytes) != cudaSuccess || cudaMemset(buf, 0, bytes) != cudaSuccess) {
      std::fprintf(stderr, "nestor::mp: cannot allocate %zu bytes of merge-path scratch\n", bytes);
      std::abort();
    }
    cap = bytes;
  }
  return buf;
}

/// The grid of the merge pass: every SM filled with as many blocks of kernel
/// `k` (of `block` threads) as fit (a persistent grid: no host sync to learn
/// the nonzero count). Cached per kernel.
template <class K> inline int grid_for(K k, int block = kBlock) {
  static const void *known[16];
  static int grids[16];
  static int count = 0;
  for (int i = 0; i < count; ++i)
    if (known[i] == reinterpret_cast<const void *>(k)) return grids[i];
  int dev = 0, sms = 0, per = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, block, 0) != cudaSuccess || per < 1) per = 1;
  // Ask for the smallest shared memory carveout that still holds `per`
  // blocks: the rest of the SM's memory is L1, which caches the gathers of
  // f (on an H200, the driver's own choice was 1-4% slower than this, the
  // largest carveout 40-70% slower: docs/rewrites-merge-path.md). A hint:
  // if the occupancy drops with it, it is withdrawn. Not tried while an
  // error is pending: clearing a refused hint's error below would clear the
  // caller's too, which its own check after the launch must still see.
  cudaFuncAttributes fa;
  int maxSm = 0, reserved = 0;
  if (cudaPeekAtLastError() == cudaSuccess && cudaFuncGetAttributes(&fa, k) == cudaSuccess &&
      cudaDeviceGetAttribute(&maxSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) == cudaSuccess &&
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev) == cudaSuccess && maxSm > 0) {
    const long long need = (long long)per * (long long)(fa.sharedSizeBytes + reserved);
    const int pct = int((need * 100 + maxSm - 1) / maxSm);
    int with = 0;
    if (cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, pct < 100 ? pct : 100) == cudaSuccess &&
        (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&with, k, block, 0) != cudaSuccess || with < per))
      cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, -1);
    (void)cudaGetLastError(); // a refused hint leaves no error behind
  }
  const int grid = (sms > 0 ? sms : 1) * per;
  if (count < 16) {
    known[count] = reinterpret_cast<const void *>(k);
    grids[count++] = grid;
  }
  return grid;
}

/// Scratch layout: a 256-byte header (the fused mode's block counter, which
/// every fused launch leaves at 0, and D) at a fixed place, then the arrays.
constexpr size_t kHeader = 256;
inline size_t round256(size_t b) { return (b + 255) / 256 * 256; }

/// Launches the merge pass over `n` rows (merge(state, grid) launches the
/// merge kernel with `grid` blocks of kBlock threads), then the row pass
/// (row(state) launches the original grid). With n <= 0 only the row pass
/// runs, with a state that makes it run its loop as written.
template <class T, int Block = kBlock, class K, class Merge, class Row>
inline void launch(long long n, K mergeKernel, Merge merge, Row row) {
  if (n <= 0) {
    row(state{});
    return;
  }
  const int grid = grid_for(mergeKernel, Block);
  const size_t rowsBytes = round256(size_t(n) * sizeof(T));
  const size_t carryBytes = round256(size_t(grid) * sizeof(T));
  char *buf = static_cast<char *>(scratch(kHeader + rowsBytes + carryBytes));
  state s;
  s.done = reinterpret_cast<unsigned *>(buf);
  s.span = reinterpret_cast<long long *>(buf + 8);
  s.rows = buf + kHeader;
  s.carry = buf + kHeader + rowsBytes;
  merge(s, grid);
  row(s);
}

/// Whether the original launch <<<grid, block>>> of a kernel whose row index
/// is blockIdx.x * blockDim.x + threadIdx.x has exactly one thread for each
/// row 0 .. n - 1 (a 1-D grid covering n, index below 2^31): then the merge
/// kernel may run the rows' epilogues itself.
inline bool one_thread_per_row(long long n, dim3 grid, dim3 block) {
  const unsigned long long threads = (unsigned long long)grid.x * block.x;
  return grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1 && threads >= (unsigned long long)n &&
         threads <= (1ull << 31);
}

/// launch() for a merge kernel that was given the kernel's epilogue: when the
/// original launch has one thread per row, the merge kernel finishes every
/// row (fused: one launch, no row pass); otherwise as launch() (the row pass
/// with row(state, grid, block)). grid and block are evaluated once.
template <class T, int Block = kBlock, class K, class Merge, class Row>
inline void launch(long long n, dim3 grid, dim3 block, K mergeKernel, Merge merge, Row row) {
  if (n <= 0 || !one_thread_per_row(n, grid, block)) {
    launch<T, Block>(n, mergeKernel, merge, [&](state s) { row(s, grid, block); });
    return;
  }
  const int g = grid_for(mergeKernel, Block);
  const size_t arrBytes = round256(size_t(g) * sizeof(T));
  const size_t rowBytes = round256(size_t(g) * sizeof(long long));
  char *buf = static_cast<char *>(scratch(kHeader + 2 * arrBytes + 2 * rowBytes));
  state s;
  s.done = reinterpret_cast<unsigned *>(buf);
  s.span = reinterpret_cast<long long *>(buf + 8);
  s.carry = buf + kHeader;
  s.tail = buf + kHeader + arrBytes;
  s.tailRow = reinterpret_cast<long long *>(buf + kHeader + 2 * arrBytes);
  s.tailFrom = reinterpret_cast<long long *>(buf + kHeader + 2 * arrBytes + rowBytes);
  s.fused = true;
  merge(s, g);
}

} // namespace nestor::mp
