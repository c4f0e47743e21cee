// CUDA-NP master/slave helpers (Yang, Zhou,
// "CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications",
// section 3): what a kernel rewritten
// for nested thread-level parallelism calls to broadcast live-ins (3.1),
// combine live-outs by reduction or scan (3.2) and place live local arrays
// (3.3), for both thread mappings of 3.4:
//
//   np::intra<S>      intra-warp NP: a group is S consecutive lanes of the
//                     linear thread index (S in {2,4,8,16,32}); slave_id is
//                     linear_tid % S, the master is slave 0. Communication by
//                     warp shuffles; no shared memory, no block barrier.
//   np::inter<M, S>   inter-warp NP: block (M, S, 1); master_id = threadIdx.x,
//                     slave_id = threadIdx.y, the master is y == 0. Communication
//                     through a shared-memory slot per (slave, master) and
//                     barriers (see `Barrier` below).
//
// Both offer the same static interface, so the rewriter emits one code shape:
//   slave_id(), master_id(), is_master(), slave_size, masters_per_block()
//   read_from_master(v)
//   reduce<Op>(v)                         -> op over the group, to every member
//   inclusive_scan<Op>(v[, init]), exclusive_scan<Op>(v[, init])  (slave order)
//   scanner<Op, T>                        -> scans of a strided loop in iteration order
//   chunk(begin, end)                     -> contiguous per-slave range
// The exact contracts are in docs/runtime-loops.md.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <nestor/ops.cuh>
#include <nestor/subwarp.cuh>

namespace nestor::np {

// Contiguous range of iterations of one slave when [begin, end) is split into
// S chunks of ceil(n/S) (the last chunks may be short or empty).
template <class Idx> struct range {
  Idx begin;
  Idx end;
};

template <class Idx> __host__ __device__ constexpr range<Idx> chunk_of(Idx begin, Idx end, int slave, int slaves) {
  const Idx n = end > begin ? end - begin : Idx(0);
  const Idx per = (n + Idx(slaves) - 1) / Idx(slaves);
  const Idx lo = per * Idx(slave) < n ? per * Idx(slave) : n;
  const Idx hi = per * Idx(slave + 1) < n ? per * Idx(slave + 1) : n;
  return {Idx(begin + lo), Idx(begin + hi)};
}

// One step of a scanner: the scan values of this slave's iteration.
template <class T> struct scan_step {
  T exclusive;  // init op (all earlier iterations)
  T inclusive;  // init op (all earlier iterations) op (this iteration)
};

// ---------------------------------------------------------------- intra-warp
template <int S> struct intra {
  static_assert(subwarp::valid_width_v<S>, "nestor::np::intra<S>: S must be 2, 4, 8, 16 or 32");
  using group = subwarp::tile<S>;
  static constexpr int slave_size = S;

  __device__ static int slave_id() { return int(detail::linear_tid() % unsigned(S)); }
  __device__ static bool is_master() { return slave_id() == 0; }
  __device__ static unsigned master_id() { return detail::linear_tid() / unsigned(S); }
  __device__ static unsigned masters_per_block() { return group::per_block(); }
  __device__ static unsigned long long global_master_id() { return group::global_index(); }
  // Static lanes of this group and the ones still alive (see subwarp.cuh).
  __device__ static unsigned group_mask() { return group::static_mask(); }
  __device__ static unsigned live_mask() { return group::live_mask(); }

  template <class T> __device__ static T read_from_master(T v) { return group::broadcast(v, 0); }

  template <class Op, class T> __device__ static T reduce(T v, Op op = {}) { return group::reduce(v, op); }

  // Scan over the slaves of a group in slave order (slave 0 first): each slave
  // contributes one value. init defaults to the operator's identity.
  template <class Op, class T>
  __device__ static T inclusive_scan(T v, Op op = {}, T init = Op::template identity<T>()) {
    return group::template inclusive_scan<Op>(v, op, init);
  }
  template <class Op, class T>
  __device__ static T exclusive_scan(T v, Op op = {}, T init = Op::template identity<T>()) {
    return group::template exclusive_scan<Op>(v, op, init);
  }

  template <class Idx> __device__ static range<Idx> chunk(Idx begin, Idx end) {
    return chunk_of(begin, end, slave_id(), S);
  }

  // Rounds of S iterations needed for n iterations: the trip count of the
  // padded loop `for (r = 0; r < rounds(n); ++r) { i = r * S + slave_id(); ... }`
  // that a scanner needs. n is the master's (group-uniform) trip count.
  template <class Idx> __device__ static Idx rounds(Idx n) { return n > Idx(0) ? (n + Idx(S) - 1) / Idx(S) : Idx(0); }
  // The same under the name both mappings share (inter: block-uniform).
  template <class Idx> __device__ static Idx loop_rounds(Idx n) { return rounds(n); }

  // Barrier among the live members of the group, with memory ordering: put it
  // between two parallel loops that communicate through a shared or global
  // array (NESTOR_NP_ARRAY_SHARED/GLOBAL), e.g. one slave writes a[i] and
  // another reads it.
  __device__ static void sync() { __syncwarp(live_mask()); }

  // Scans of a strided loop in the original iteration order. The loop
  //   for (i = 0; i < n; i++) { acc = op(acc, x(i)); use(acc); }
  // becomes (every slave runs the same number of rounds; see docs):
  //   np::intra<S>::scanner<Op, T> sc(acc);
  //   for (Idx base = 0; base < n; base += S) {
  //     Idx i = base + slave_id(); bool valid = i < n;
  //     auto s = sc.step(valid ? x(i) : Op::identity<T>());
  //     if (valid) use(s.inclusive);
  //   }
  //   acc = sc.total();   // the live-out, the same in every slave
  template <class Op, class T> struct scanner {
    T carry;
    Op op;
    __device__ explicit scanner(T init = Op::template identity<T>(), Op o = {}) : carry(init), op(o) {}
    __device__ scan_step<T> step(T v) {
      subwarp::scan_parts<T> p = group::scan(v, op);
      scan_step<T> r{p.has_exclusive ? op(carry, p.exclusive) : carry, op(carry, p.inclusive)};
      carry = op(carry, p.total);
      return r;
    }
    __device__ T total() const { return carry; }
  };
};

// ---------------------------------------------------------------- inter-warp
// Barrier policies of inter<M, S>.
namespace barrier {
namespace impl {
// Max of v over the block with __syncthreads (every thread present).
__device__ inline int block_max(int v) {
  __shared__ int most;
  if (detail::linear_tid() == 0) most = v;
  __syncthreads();
  if (v > most) atomicMax(&most, v);
  __syncthreads();
  const int r = most;
  __syncthreads();
  return r;
}
} // namespace impl

// __syncthreads(). Precondition: every thread of the block calls the helper
// (a kernel with `if (tid >= n) return;` must be rewritten to skip the work
// instead of returning, or use intra-warp NP).
struct block {
  __device__ static void sync() { __syncthreads(); }
  __device__ static int max(int v) { return impl::block_max(v); }
};
// For blocks of at most 32 threads (M * S <= 32: the whole block is one warp)
// a warp barrier over the live lanes replaces __syncthreads, so lanes that
// exited are allowed; larger blocks fall back to __syncthreads (the test is
// uniform over the block). Inter-warp groups of larger blocks span several
// warps, so a block-wide (or named) barrier is unavoidable there.
struct automatic {
  __device__ static unsigned block_lanes(unsigned threads) {
    return threads >= 32 ? 0xffffffffu : ((1u << threads) - 1u);
  }
  __device__ static void sync() {
    const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    if (threads <= 32) {
      __syncwarp(__ballot_sync(block_lanes(threads), 1));
    } else {
      __syncthreads();
    }
  }
  __device__ static int max(int v) {
    const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    if (threads > 32) return impl::block_max(v);
    const unsigned live = __ballot_sync(block_lanes(threads), 1);
    int r = v;
    for (unsigned rest = live; rest != 0; rest &= rest - 1) {
      const int other = __shfl_sync(live, v, __ffs(rest) - 1);
      r = other > r ? other : r;
    }
    return r;
  }
};
} // namespace barrier

template <int M, int S, class Barrier = barrier::block> struct inter {
  static_assert(M >= 1 && S >= 1 && M * S <= 1024, "nestor::np::inter<M, S>: block (M, S) must have 1..1024 threads");
  static constexpr int slave_size = S;
  static constexpr int master_size = M;

  __device__ static int slave_id() { return int(threadIdx.y); }
  __device__ static bool is_master() { return threadIdx.y == 0; }
  __device__ static unsigned master_id() { return threadIdx.x; }
  __device__ static unsigned masters_per_block() { return unsigned(M); }
  __device__ static unsigned long long global_master_id() {
    return (unsigned long long)(blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z)) * M + threadIdx.x;
  }

  // One slot per (slave, master), [slave][master] so that a warp (consecutive
  // masters) touches consecutive words. One buffer per T, shared by all helpers
  // of this instantiation; every helper ends with a barrier, so calls can follow
  // each other directly.
  template <class T> __device__ static T* slots() {
    __shared__ alignas(alignof(T) > 16 ? alignof(T) : 16) unsigned char raw[sizeof(T) * M * S];
    return reinterpret_cast<T*>(raw);
  }
  __device__ static void check_shape() {
    NESTOR_DEVICE_REQUIRE(blockDim.x == unsigned(M) && blockDim.y == unsigned(S) && blockDim.z == 1u,
                          "np::inter<M, S> needs blockDim == (M, S, 1)");
  }

  template <class T> __device__ static T read_from_master(T v) {
    check_shape();
    T* slot = slots<T>();
    if (is_master()) slot[threadIdx.x] = v;
    Barrier::sync();
    T r = slot[threadIdx.x];
    Barrier::sync();
    return r;
  }

  // Every thread writes its value; each reads the S values of its master in
  // slave order. Returns {exclusive (without init), inclusive, total}.
  template <class T, class Op> __device__ static subwarp::scan_parts<T> scan(T v, Op op) {
    check_shape();
    T* slot = slots<T>();
    const unsigned x = threadIdx.x;
    const int me = slave_id();
    slot[me * M + x] = v;
    Barrier::sync();
    subwarp::scan_parts<T> r{};
    T acc = slot[x];
    r.has_exclusive = me > 0;
    r.exclusive = v;
    if (me == 0) r.inclusive = acc;
    for (int k = 1; k < S; ++k) {
      if (k == me) r.exclusive = acc;
      acc = op(acc, slot[k * M + x]);
      if (k == me) r.inclusive = acc;
    }
    r.total = acc;
    Barrier::sync();
    return r;
  }

  template <class Op, class T> __device__ static T reduce(T v, Op op = {}) { return scan(v, op).total; }

  template <class Op, class T>
  __device__ static T inclusive_scan(T v, Op op = {}, T init = Op::template identity<T>()) {
    return op(init, scan(v, op).inclusive);
  }
  template <class Op, class T>
  __device__ static T exclusive_scan(T v, Op op = {}, T init = Op::template identity<T>()) {
    subwarp::scan_parts<T> p = scan(v, op);
    return p.has_exclusive ? op(init, p.exclusive) : init;
  }

  template <class Idx> __device__ static range<Idx> chunk(Idx begin, Idx end) {
    return chunk_of(begin, end, slave_id(), S);
  }

  // Rounds of S iterations for the *block*: the largest rounds(n) over all
  // masters of the block, so that a padded loop that calls barrier helpers
  // (scanner::step, reduce, ...) runs the same number of times in every
  // thread. Costs up to three barriers; call it once per loop.
  __device__ static int block_rounds(long long n) {
    return Barrier::max(n > 0 ? int((n + S - 1) / S) : 0);
  }
  __device__ static int loop_rounds(long long n) { return block_rounds(n); }

  // Barrier between parallel loops that communicate through memory (same
  // precondition as every other helper: the whole block reaches it).
  __device__ static void sync() { Barrier::sync(); }

  // Same contract as intra<S>::scanner; each step costs two barriers and must
  // be reached by every thread of the block (loop to block_rounds(n)).
  template <class Op, class T> struct scanner {
    T carry;
    Op op;
    __device__ explicit scanner(T init = Op::template identity<T>(), Op o = {}) : carry(init), op(o) {}
    __device__ scan_step<T> step(T v) {
      subwarp::scan_parts<T> p = inter::scan(v, op);
      scan_step<T> r{p.has_exclusive ? op(carry, p.exclusive) : carry, op(carry, p.inclusive)};
      carry = op(carry, p.total);
      return r;
    }
    __device__ T total() const { return carry; }
  };
};

// ------------------------------------------------- live local arrays (3.3)
enum class array_home { registers, shared, global };

// The CUDA-NP placement policy for a thread-local array that is live across a
// parallel loop: split it over the slaves' registers when every access is
// indexed by the loop iterator of a strided parallel loop; otherwise shared
// memory when it is smaller than the 384-byte budget per master minus the shared
// memory the original kernel already uses per master thread; otherwise global.
constexpr array_home choose_array_home(bool indexed_only_by_iterator, std::size_t array_bytes,
                                       std::size_t baseline_shared_bytes_per_master = 0,
                                       std::size_t budget_bytes = 384) {
  if (indexed_only_by_iterator) return array_home::registers;
  const std::size_t left = baseline_shared_bytes_per_master < budget_bytes ? budget_bytes - baseline_shared_bytes_per_master : 0;
  return array_bytes < left ? array_home::shared : array_home::global;
}

// Option 3: each slave keeps elements i with i % S == slave_id, at i / S.
// Valid only for accesses `a[i]` inside `for (i = slave_id; i < N; i += S)`
// (checked when NESTOR_DEVICE_CHECKS is on).
template <class Group, class T, int N> struct register_array {
  static constexpr int S = Group::slave_size;
  static_assert(N > 0, "register_array: N must be positive");
  T part[(N + S - 1) / S];
  __device__ T& operator[](long long i) {
    NESTOR_DEVICE_REQUIRE(i >= 0 && i < N && int(i % S) == Group::slave_id(),
                          "register_array: index out of range or owned by another slave");
    return part[i / S];
  }
};

// Options 1 and 2: one array per master, elements interleaved across the
// masters of a block (element i of master m at base[i * masters + m]) so that
// masters accessing the same i touch consecutive words.
template <class T> struct interleaved_array {
  T* base;
  unsigned stride;
  long long size;
  __device__ T& operator[](long long i) const {
    NESTOR_DEVICE_REQUIRE(i >= 0 && i < size, "np array index out of range");
    return base[i * stride];
  }
};

// `storage` holds N * masters_per_block elements (declared __shared__ by the caller).
template <class Group, class T> __device__ interleaved_array<T> shared_array(T* storage, long long n) {
  return {storage + Group::master_id(), Group::masters_per_block(), n};
}
// `pool` holds N * masters_per_block elements for every block of the grid.
template <class Group, class T> __device__ interleaved_array<T> global_array(T* pool, long long n) {
  const unsigned long long block = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  const unsigned masters = Group::masters_per_block();
  return {pool + block * masters * n + Group::master_id(), masters, n};
}

// Several arrays share one pool: the array whose region starts after
// `offset_per_master` bytes of each master's earlier arrays (16-byte aligned).
template <class Group, class T>
__device__ interleaved_array<T> global_array_at(void* pool, unsigned long long offset_per_master, long long n) {
  const unsigned long long blocks = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  char* region = static_cast<char*>(pool) + blocks * Group::masters_per_block() * offset_per_master;
  return global_array<Group>(reinterpret_cast<T*>(region), n);
}

// ---- host side: launch reshaping
//
// When the enlarged block would exceed 1024 threads (or __launch_bounds__),
// the rewriter keeps the work per master and puts fewer masters in each
// block: a block of M threads becomes `factor` blocks of M / factor masters,
// so the grid has `factor` times the blocks in x and every original thread
// index blockIdx.x * M + threadIdx.x still exists exactly once.
__host__ __device__ inline dim3 reshape_grid(dim3 grid, unsigned factor) {
  return dim3(grid.x * factor, grid.y, grid.z);
}

// A launch whose block was spelled with a macro or a named constant
// (`TMV_BLOCK`, `kBlock`): CUDA-NP (and sub-warp, which shares its launch
// planner) wrote the enlarged block (and a reshaped grid, and inter-warp's
// np::inter<M, S>) from the value it had then, and passes `(TMV_BLOCK) == 64`
// here. Built with another value, the launch would cover other threads than
// the kernel expects, silently; this makes it a compile error instead.
template <bool BlockAsAnalysed, class Block> __host__ __device__ inline Block block_as_analysed(Block block) {
  static_assert(BlockAsAnalysed,
                "nestor::np: this launch's block size is not the one it was rewritten for (the condition "
                "passed to block_as_analysed names it): apply the rewrite again for the new size");
  return block;
}

// Run-time blocks (intra-warp groups read their shape from blockDim): the
// most masters per block that divide the original block of `block` threads
// and fit `limit` threads with `slaves` slaves each; 0 when not even one does.
__host__ __device__ inline unsigned reshape_masters(unsigned block, unsigned slaves, unsigned limit) {
  for (unsigned m = block; m >= 1; --m)
    if (block % m == 0 && (unsigned long long)m * slaves <= limit) return m;
  return 0;
}

// The enlarged block of a launch whose original block is `block` threads.
// Stops the program with the reason when no block fits (a launch with an
// invalid configuration would otherwise fail later, far from its cause).
inline dim3 reshape_block(unsigned block, unsigned slaves, unsigned limit) {
  unsigned m = block ? reshape_masters(block, slaves, limit) : 0;
  if (m == 0) {
    std::fprintf(stderr, "nestor::np::reshape_block: a block of %u threads with %u slaves per thread cannot fit %u threads\n",
                 block, slaves, limit);
    std::abort();
  }
  return dim3(m * slaves, 1, 1);
}

// How many blocks each original block becomes (pass to reshape_grid).
inline unsigned reshape_factor(unsigned block, unsigned slaves, unsigned limit) {
  unsigned m = block ? reshape_masters(block, slaves, limit) : 0;
  return m ? block / m : 1;
}

// ---- host side: the pool behind NESTOR_NP_ARRAY_GLOBAL_AT
//
// One device buffer per launch site (Site), host thread and device, grown on
// demand and kept for the life of the process. Stream safety: the rewriter
// only uses it for launches on the default stream, where launches from one
// host thread run in order (legacy and per-thread default streams alike), so
// a launch never sees its buffer reused by a later one while it runs; each
// host thread has its own buffer. Growth waits for the device before freeing
// the old buffer, which earlier launches may still be using.
// (Host code; declared in the device pass too, where host code is parsed.)
struct array_pool_slot {
  void* ptr = nullptr;
  std::size_t bytes = 0;
};
template <int Site>
inline void* array_pool(dim3 grid, unsigned masters_per_block, std::size_t bytes_per_master, const char* kernel) {
  static thread_local array_pool_slot slots[64];
  int device = 0;
  cudaGetDevice(&device);
  array_pool_slot& slot = slots[device & 63];
  const std::size_t need = std::size_t(grid.x) * grid.y * grid.z * masters_per_block * bytes_per_master;
  if (need <= slot.bytes && slot.ptr) return slot.ptr;
  if (slot.ptr) {
    cudaDeviceSynchronize();
    cudaFree(slot.ptr);
    slot = {};
  }
  const cudaError_t err = cudaMalloc(&slot.ptr, need ? need : 16);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "nestor: cannot allocate %zu bytes of device memory for the thread-local arrays that CUDA-NP "
                 "moved to global memory in kernel '%s': %s\n", need, kernel, cudaGetErrorString(err));
    std::abort();
  }
  slot.bytes = need ? need : 16;
  return slot.ptr;
}

} // namespace nestor::np

// What the rewriter emits in place of `T name[N];` (the CUDA-NP paper, Figure 6), so
// that the loop bodies keep `name[i]` unchanged. G is np::intra<S> or
// np::inter<M, S>; M the masters per block (compile-time for shared memory).
#define NESTOR_NP_ARRAY_REGISTERS(G, T, name, N) nestor::np::register_array<G, T, (N)> name
#define NESTOR_NP_ARRAY_SHARED(G, T, name, N, M)                                                  \
  __shared__ T name##_nestor_storage[(N) * (M)];                                                   \
  NESTOR_DEVICE_REQUIRE(G::masters_per_block() == unsigned(M),                                     \
                        "NESTOR_NP_ARRAY_SHARED: M differs from the masters per block");          \
  auto name = nestor::np::shared_array<G>(name##_nestor_storage, (N))
#define NESTOR_NP_ARRAY_GLOBAL(G, T, name, N, pool) auto name = nestor::np::global_array<G>((T*)(pool), (N))
#define NESTOR_NP_ARRAY_GLOBAL_AT(G, T, name, N, pool, offset_per_master) \
  auto name = nestor::np::global_array_at<G, T>((pool), (offset_per_master), (N))
