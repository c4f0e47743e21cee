// Sub-warp (virtual-warp) decomposition: a warp is split into tiles of W
// consecutive lanes (W in {2,4,8,16,32}); one tile carries out one coarse task
// (CTE paper, section II and Table I; CUSP's CSR-vector SpMV). The tile
// primitives here are also what intra-warp CUDA-NP (np.cuh) is built on: a
// master and its S-1 slaves are exactly one tile of width S.
//
// Masks. Every primitive works on the tile's *live* lanes, found with
// __ballot_sync over the tile's static lane mask: ballot waits only for the
// non-exited lanes it names, so lanes that returned early (`if (i >= n) return;`)
// are simply absent, and lanes of other tiles are never named. No primitive
// uses a hard-coded 0xffffffff. When all W lanes are live (the normal case:
// CUDA-NP masters and slaves exit together) the fast shuffle butterfly/ladder
// is used; a tile with holes takes an ordered lane-by-lane path that gives the
// same results.
//
// Precondition of every primitive: all live lanes of a tile call it (the same
// call, the same number of times); lanes of different tiles are independent.
#pragma once

#include <cstdio>
#include <nestor/ops.cuh>

namespace nestor::subwarp {

template <int W> inline constexpr bool valid_width_v = W == 2 || W == 4 || W == 8 || W == 16 || W == 32;

// Result of a scan over a tile: `inclusive` combines ranks [0, rank],
// `exclusive` ranks [0, rank) (meaningless when !has_exclusive, i.e. for the
// first live lane) and `total` all live lanes (the same in every lane).
template <class T> struct scan_parts {
  T inclusive;
  T exclusive;
  bool has_exclusive;
  T total;
};

template <int W> struct tile {
  static_assert(valid_width_v<W>, "nestor::subwarp::tile<W>: W must be 2, 4, 8, 16 or 32");
  static constexpr int width = W;

  // Lanes of the calling thread's tile, whether alive or not.
  __device__ static unsigned static_mask() {
    if constexpr (W == 32) {
      return 0xffffffffu;
    } else {
      return ((1u << W) - 1u) << (detail::lane_id() & ~unsigned(W - 1));
    }
  }
  // Lanes of this tile that have not exited (synchronizes them).
  __device__ static unsigned live_mask() { return __ballot_sync(static_mask(), 1); }

  __device__ static int rank() { return int(detail::lane_id() & unsigned(W - 1)); }
  __device__ static int index_in_warp() { return int(detail::lane_id() / unsigned(W)); }
  __device__ static unsigned index_in_block() { return detail::linear_tid() / unsigned(W); }
  __device__ static unsigned per_block() {
    return (blockDim.x * blockDim.y * blockDim.z + unsigned(W) - 1) / unsigned(W);
  }
  // Tile index over the whole grid, the task a tile starts with.
  __device__ static unsigned long long global_index() {
    unsigned long long block = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    unsigned long long threads = (unsigned long long)blockDim.x * blockDim.y * blockDim.z;
    return (block * threads + detail::linear_tid()) / unsigned(W);
  }
  // Number of tiles in the grid: the stride of a grid-stride loop over tasks.
  __device__ static unsigned long long count_in_grid() {
    unsigned long long blocks = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    return blocks * per_block();
  }

  // Value of `v` held by lane `src_rank` of the tile (rank 0, the master, by
  // default). The source lane must be live.
  template <class T> __device__ static T broadcast(T v, int src_rank = 0) {
    const unsigned live = live_mask();
    return detail::shfl_idx(live, v, int(detail::lane_id() & ~unsigned(W - 1)) + src_rank, 32);
  }

  // Ordered scan over the live lanes with any associative `op` (no identity
  // needed). Lanes are combined in rank order.
  template <class T, class Op> __device__ static scan_parts<T> scan(T v, Op op) {
    const unsigned live = live_mask();
    const unsigned lane = detail::lane_id();
    scan_parts<T> r{};
    if (live == static_mask()) {
      // Kogge-Stone ladder, operands kept in rank order (op(lower, higher)).
      T incl = v;
#pragma unroll
      for (int d = 1; d < W; d <<= 1) {
        T lower = detail::shfl_up(live, incl, unsigned(d), W);
        if (rank() >= d) incl = op(lower, incl);
      }
      r.inclusive = incl;
      T prev = detail::shfl_up(live, incl, 1u, W);
      r.has_exclusive = rank() > 0;
      r.exclusive = r.has_exclusive ? prev : v;
      r.total = detail::shfl_idx(live, incl, W - 1, W);
    } else {
      // A tile with exited lanes: walk the live lanes in order. Every live lane
      // runs the same loop (same `live`), so the shuffles are uniform.
      bool started = false;
      T acc = v;
      r.has_exclusive = false;
      r.exclusive = v;
      for (unsigned rest = live; rest != 0; rest &= rest - 1) {
        const int src = __ffs(rest) - 1;
        T x = detail::shfl_idx(live, v, src, 32);
        if (unsigned(src) == lane) {
          r.has_exclusive = started;
          if (started) r.exclusive = acc;
        }
        acc = started ? op(acc, x) : x;
        started = true;
        if (unsigned(src) == lane) r.inclusive = acc;
      }
      r.total = acc;
    }
    return r;
  }

  // Combination of `v` over the live lanes, returned to every live lane.
  // `op` must be associative and commutative (the butterfly reorders).
  template <class T, class Op> __device__ static T reduce(T v, Op op) {
    const unsigned live = live_mask();
    if (live == static_mask()) {
      // Butterfly: the lower rank's operand always goes first, so both partners
      // compute bitwise-identical values and every lane ends with the same result.
#pragma unroll
      for (int d = W / 2; d > 0; d >>= 1) {
        T other = detail::shfl_xor(live, v, d, W);
        v = (rank() & d) ? op(other, v) : op(v, other);
      }
      return v;
    }
    return scan(v, op).total;
  }
  template <class Op, class T> __device__ static T reduce(T v) { return reduce(v, Op{}); }

  // init op v_0 op ... op v_rank (ranks of live lanes only).
  template <class Op, class T>
  __device__ static T inclusive_scan(T v, Op op = {}, T init = Op::template identity<T>()) {
    return op(init, scan(v, op).inclusive);
  }
  // init op v_0 op ... op v_{rank-1}; the first live lane gets init.
  template <class Op, class T>
  __device__ static T exclusive_scan(T v, Op op = {}, T init = Op::template identity<T>()) {
    scan_parts<T> p = scan(v, op);
    return p.has_exclusive ? op(init, p.exclusive) : init;
  }
};

namespace impl {
// C++17 detection (the headers must also compile under nvcc's default -std=c++17).
template <class Reduce, class T, class = void> struct has_identity : cuda::std::false_type {};
template <class Reduce, class T>
struct has_identity<Reduce, T, cuda::std::void_t<decltype(Reduce::template identity<T>())>> : cuda::std::true_type {};

template <class T> struct maybe {
  T value;
  int present;  // int, not bool: shuffled as one 32-bit word
};
} // namespace impl

// Sub-warp decomposition of one coarse task: the W lanes of a tile all pass the
// same [begin, end); lane r maps indices begin+r, begin+r+W, ... and the tile
// combines them. Returns reduce(init, map(begin) ... map(end-1)) to every lane
// of the tile, in an unspecified association/order: `reduce` must be
// associative and commutative. `map(i)` may only depend on i and on state that
// is the same for the whole tile. An empty range returns init.
// With an nestor::op functor as `reduce` the identity seeds idle lanes; any
// other callable is handled with a presence flag.
template <int W, class Idx, class Map, class Reduce, class T>
__device__ T for_each_index(Idx begin, Idx end, Map map, Reduce reduce, T init) {
  using tile_t = tile<W>;
  const Idx first = begin + Idx(tile_t::rank());
  if constexpr (impl::has_identity<Reduce, T>::value) {
    T acc = Reduce::template identity<T>();
    for (Idx i = first; i < end; i += Idx(W)) acc = reduce(acc, static_cast<T>(map(i)));
    return reduce(init, tile_t::reduce(acc, reduce));
  } else {
    impl::maybe<T> acc{init, 0};
    for (Idx i = first; i < end; i += Idx(W)) {
      T x = static_cast<T>(map(i));
      acc.value = acc.present ? reduce(acc.value, x) : x;
      acc.present = 1;
    }
    auto combine = [&](impl::maybe<T> a, impl::maybe<T> b) {
      if (!a.present) return b;
      if (!b.present) return a;
      return impl::maybe<T>{reduce(a.value, b.value), 1};
    };
    impl::maybe<T> all = tile_t::reduce(acc, combine);
    return all.present ? reduce(init, all.value) : init;
  }
}

// Host-side helper: blocks needed so that every one of `tasks` gets its own
// tile of width W with `block_threads` threads per block (block_threads must be
// a multiple of W).
template <int W>
constexpr unsigned long long blocks_for_tasks(unsigned long long tasks, unsigned block_threads) {
  const unsigned long long tiles_per_block = block_threads / unsigned(W);
  return tiles_per_block == 0 ? 0 : (tasks + tiles_per_block - 1) / tiles_per_block;
}

} // namespace nestor::subwarp
