// Collaborative Task Engagement (CTE; Khorasani, Rowe, Gupta, Bhuyan,
// "Eliminating Intra-warp Load Imbalance in Irregular Nested Patterns via Collaborative Task Engagement",
// section III):
// each thread of a warp owns one coarse task, an index range [begin, end); the
// warp expands the 32 ranges into one list of fine tasks, walks it 32 at a time
// (lane l takes fine task round + l whatever coarse task it belongs to), and
// combines the mapped values per coarse task with a segmented reduction. The
// result for each coarse task is returned to the thread that owned it.
//
//   sum = nestor::cte::for_each_index<BlockDim, nestor::cte::scanned>(
//           row_begin, row_end,
//           [=](int i) { return val[i] * x[col[i]]; },
//           [](float a, float b) { return a + b; }, sum);
//
// Implementation (III-B, with shuffles where the paper uses volatile shared
// buffers, so there is no shared memory and no barrier):
//   * inclusive prefix sum of the task sizes across the warp (shuffle ladder);
//     in `scanned` mode the ranges are already consecutive (end of lane l ==
//     begin of lane l+1) and the offsets are begin - begin_of_lane_0;
//   * per round, the owner of fine task j is the number of lanes whose
//     inclusive offset is <= j, found by a 5-step binary search whose probes are
//     shuffles from the probed lane;
//   * mapped values of one owner are consecutive lanes (a segment); a suffix
//     Kogge-Stone within segments leaves each segment's total in its first lane,
//     and the owner pulls it and combines it into its accumulator.
// Results are combined in index order (init, map(begin), ..., map(end-1)) up to
// association, so `reduce` must be associative; it need not be commutative.
//
// Preconditions: all 32 lanes of the warp call for_each_index together. When
// the warp is not full at the call (__activemask() != 0xffffffff: a partial
// last warp, lanes that returned early, divergence), it falls back to the
// one-thread-per-task loop, which gives the same result. Give idle threads an
// empty range instead of returning, to keep the warp full and fast.
#pragma once

#include <cuda/std/tuple>
#include <cuda/std/type_traits>
#include <nestor/ops.cuh>

namespace nestor::cte {

// The ranges of consecutive lanes are consecutive: end of lane l == begin of
// lane l+1 (e.g. CSR row offsets, row = thread index). The prefix sum is then
// free. If the warp's ranges turn out not to be consecutive, the disjoint path
// is taken (one shuffle and a vote to check), so a wrong hint costs time, not
// correctness.
struct scanned {};
// Arbitrary ranges; the prefix sum of sizes is computed.
struct disjoint {};

namespace impl {
template <class Idx, class Map, class Reduce, class T, class... Desc>
__device__ T one_thread_per_task(Idx begin, Idx end, Map& map, Reduce& reduce, T acc, Desc... desc) {
  for (Idx i = begin; i < end; ++i) acc = reduce(acc, static_cast<T>(map(i, desc...)));
  return acc;
}
} // namespace impl

// map(i, desc...) -> value convertible to T: the fine task at index i of the
// owning coarse task; `desc...` are task descriptors (per-thread values the map
// needs), taken from the owning thread, not the calling one. `map` must not
// read any other per-thread state of the caller (a lambda capturing thread-
// private variables by reference would see the wrong thread's values).
// reduce(T, T) -> T, associative.
// BlockDim is the paper's interface (used there to size shared buffers); this
// shuffle-based implementation needs no shared memory and only checks it.
template <unsigned BlockDim, class Mode, class Idx, class Map, class Reduce, class T, class... Desc>
__device__ T for_each_index(Idx begin, Idx end, Map map, Reduce reduce, T init, Desc... desc) {
  static_assert(BlockDim >= 1 && BlockDim <= 1024, "cte::for_each_index: BlockDim must be 1..1024");
  static_assert(cuda::std::is_same_v<Mode, scanned> || cuda::std::is_same_v<Mode, disjoint>,
                "cte::for_each_index: Mode must be nestor::cte::scanned or nestor::cte::disjoint");
  static_assert(cuda::std::is_integral_v<Idx>, "cte::for_each_index: begin/end must be integers");

  if (__activemask() != 0xffffffffu) {
    // Not every lane is here: the expansion would miss tasks. Safe 1D fallback.
    return impl::one_thread_per_task(begin, end, map, reduce, init, desc...);
  }
  constexpr unsigned full = 0xffffffffu;
  const int lane = int(detail::lane_id());
  const Idx size = end > begin ? Idx(end - begin) : Idx(0);

  // excl/incl: this lane's task occupies fine tasks [excl, incl) of the warp.
  Idx incl{}, excl{};
  bool offsets_done = false;
  if constexpr (cuda::std::is_same_v<Mode, scanned>) {
    const Idx next_begin = __shfl_down_sync(full, begin, 1);
    const bool consecutive = end >= begin && (lane == 31 || next_begin == end);
    if (__all_sync(full, consecutive)) {
      const Idx base = __shfl_sync(full, begin, 0);
      excl = Idx(begin - base);
      incl = Idx(end - base);
      offsets_done = true;
    }
  }
  if (!offsets_done) {
    incl = size;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const Idx lower = __shfl_up_sync(full, incl, d);
      if (lane >= d) incl += lower;
    }
    excl = Idx(incl - size);
  }
  const Idx total = __shfl_sync(full, incl, 31);

  T acc = init;
  for (Idx round = 0; round < total; round += Idx(32)) {
    const Idx j = round + Idx(lane);
    const bool valid = j < total;
    // Owner = number of lanes whose task ends at or before j (binary search by shuffles).
    int owner = 0;
#pragma unroll
    for (int step = 16; step > 0; step >>= 1) {
      const Idx probe = __shfl_sync(full, incl, owner + step - 1);
      if (probe <= j) owner += step;
    }
    const Idx owner_incl = __shfl_sync(full, incl, owner);
    const Idx owner_excl = __shfl_sync(full, excl, owner);
    const Idx owner_begin = __shfl_sync(full, begin, owner);
    auto owner_desc = cuda::std::make_tuple(detail::shfl_idx(full, desc, owner)...);

    T x = init;
    if (valid) {
      const Idx i = Idx(owner_begin + (j - owner_excl));
      x = cuda::std::apply([&](auto const&... d) { return static_cast<T>(map(i, d...)); }, owner_desc);
    }
    // Segment = lanes of this round with the same owner; its last lane:
    const Idx seg_end = owner_incl - round;
    const int seg_last = (seg_end < Idx(32) ? int(seg_end) : 32) - 1;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const T right = detail::shfl_down(full, x, unsigned(d));
      if (valid && lane + d <= seg_last) x = reduce(x, right);
    }
    // The owner takes its segment's total from the segment's first lane.
    const Idx lo = excl > round ? excl : round;
    const Idx hi = incl < round + Idx(32) ? incl : round + Idx(32);
    const bool mine = lo < hi;
    const T part = detail::shfl_idx(full, x, mine ? int(lo - round) : lane);
    if (mine) acc = reduce(acc, part);
  }
  return acc;
}

} // namespace nestor::cte
