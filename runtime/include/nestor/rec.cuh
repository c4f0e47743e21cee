// Runtime of the recursion templates (Li, Wu, Becchi,
// "Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations",
// II-C; rewriters rec_hier and rec_flat, docs/rewrites-templates.md).
//
// rec-flat runs a recursion over CSR children level by level, without
// dynamic parallelism: level L's frontier holds the nodes whose children the
// recursion visits at depth L (the root, then every child that recursed).
//   1. expand(): each frontier node's child count, a scan of the counts
//      (CUB, first[0] = 0) gives every (node, child) pair its index, and the
//      total sizes the next frontier exactly: a pair pushes at most one node,
//      so the next level's buffer cannot overflow;
//   2. the rewritten level kernel runs one thread per pair (owner(): binary
//      search in the scan) and pushes the children that recurse;
//   3. advance() makes the pushed nodes the next frontier.
// Every level's frontier is kept, so the post-order pass can replay the
// combination bottom-up (deepest level first), after every subtree.
// Buffers are cached between runs (grow only); a CUDA error is reported on
// stderr with what failed and ends the program (the launch it replaces had no
// way to report it either).
#pragma once

#include <cub/device/device_scan.cuh>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace nestor::rec {

inline void check(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "nestor::rec: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(EXIT_FAILURE);
}

/// The pair `p`'s frontier entry: the last f with first[f] <= p, where
/// first[f] is the exclusive prefix sum of the child counts (first[0] = 0).
__device__ __forceinline__ unsigned owner(const unsigned *first, unsigned nodes, unsigned p) {
  unsigned lo = 0, hi = nodes; // first[lo] <= p < first[hi]
  while (hi - lo > 1) {
    unsigned mid = lo + (hi - lo) / 2;
    if (first[mid] <= p) lo = mid;
    else hi = mid;
  }
  return lo;
}

/// Appends `v` to a queue sized to hold every push of the level.
template <class T>
__device__ __forceinline__ void push(T *queue, unsigned *count, T v) {
  queue[atomicAdd(count, 1u)] = v;
}

/// counts[i] = children of frontier[i].
template <class O, class T>
__global__ void child_counts(const O *offsets, const T *frontier, unsigned nodes, unsigned *counts) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < nodes; i += gridDim.x * blockDim.x)
    counts[i] = unsigned(offsets[frontier[i] + 1] - offsets[frontier[i]]);
}

/// Device buffer that only grows.
template <class T>
struct grow_buffer {
  T *data = nullptr;
  size_t capacity = 0;
  T *reserve(size_t n, const char *what) {
    if (n <= capacity) return data;
    if (data) cudaFree(data);
    data = nullptr;
    capacity = 0;
    check(cudaMalloc(&data, n * sizeof(T)), what);
    capacity = n;
    return data;
  }
};

/// The levels of one recursion, level by level (see above). T: the node type.
template <class T>
class level_worklist {
public:
  static constexpr unsigned block_size = 256;

  explicit level_worklist(T root) {
    pool &p = cache();
    sizes_.assign(1, 1u);
    T *f = p.level(0).reserve(1, "frontier of level 0");
    check(cudaMemcpy(f, &root, sizeof(T), cudaMemcpyHostToDevice), "copy the root");
  }

  /// Scans the current level's child counts; false when it has no children.
  template <class O>
  bool expand(const O *offsets) {
    pool &p = cache();
    const size_t L = sizes_.size() - 1;
    const unsigned n = sizes_[L];
    if (n == 0) return false;
    unsigned *counts = p.counts.reserve(n, "child counts");
    unsigned *first = p.first.reserve(size_t(n) + 1, "child-count scan");
    child_counts<<<blocks_for(n), block_size>>>(offsets, p.level(L).data, n, counts);
    check(cudaGetLastError(), "child counts");
    check(cudaMemsetAsync(first, 0, sizeof(unsigned)), "scan start");
    size_t temp = 0;
    check(cub::DeviceScan::InclusiveSum(nullptr, temp, counts, first + 1, int(n)), "scan size");
    void *t = p.temp.reserve(temp ? temp : 1, "scan storage");
    check(cub::DeviceScan::InclusiveSum(t, temp, counts, first + 1, int(n)), "scan");
    check(cudaMemcpy(&pairs_, first + n, sizeof(unsigned), cudaMemcpyDeviceToHost), "read the pair count");
    if (pairs_ == 0) return false;
    p.level(L + 1).reserve(pairs_, "next frontier");
    check(cudaMemset(p.count.reserve(1, "next count"), 0, sizeof(unsigned)), "reset the next count");
    return true;
  }

  const T *frontier() { return cache().level(sizes_.size() - 1).data; }
  const unsigned *first() { return cache().first.data; }
  unsigned nodes() const { return sizes_.back(); }
  unsigned pairs() const { return pairs_; }
  T *next() { return cache().level(sizes_.size()).data; }
  unsigned *next_count() { return cache().count.data; }
  unsigned blocks() const { return blocks_for(pairs_); }

  /// After the level kernel: the pushed nodes become the frontier.
  void advance() {
    unsigned pushed = 0;
    check(cudaGetLastError(), "level kernel launch");
    check(cudaMemcpy(&pushed, cache().count.data, sizeof(unsigned), cudaMemcpyDeviceToHost), "read the next count");
    sizes_.push_back(pushed);
  }

  /// Levels with at least one node, root level first.
  size_t levels() const { return sizes_.back() ? sizes_.size() : sizes_.size() - 1; }
  const T *level_nodes(size_t L) { return cache().level(L).data; }
  unsigned level_size(size_t L) const { return sizes_[L]; }
  static unsigned blocks_for(unsigned n) {
    unsigned b = (n + block_size - 1) / block_size;
    return b == 0 ? 1 : (b > 65535u * 4 ? 65535u * 4 : b);
  }

private:
  struct pool {
    std::vector<grow_buffer<T>> levels;
    grow_buffer<unsigned> counts, first, count;
    grow_buffer<unsigned char> temp;
    grow_buffer<T> &level(size_t L) {
      if (levels.size() <= L) levels.resize(L + 1);
      return levels[L];
    }
  };
  static pool &cache() {
    static pool p; // kept between runs: repeated launches do not allocate again
    return p;
  }
  std::vector<unsigned> sizes_;
  unsigned pairs_ = 0;
};

} // namespace nestor::rec
