// Load-balancing templates (nestor/templates.cuh): block_reduce_range on block
// sizes that are not multiples of 32; dbuf_shared with a buffer as large as
// the block, with a small buffer (global overflow) and, with --tiny-heap, with
// an overflow allocation that fails (iterations run in place); dbuf-global and
// dual-queue through launch_templates on 1D and 2D grids; and a launch with
// no state (the original kernel). Every run checks the results against a CPU
// reference and how each row was processed (in place or replayed, exactly
// once), so a template that silently delays nothing fails. Long rows split
// across blocks (nestor/split_rows.cuh): rows of 1,000,000, of exactly one and
// two chunks, of a chunk + 1, of several chunks; which rows were split, read
// back from the pool, against the rule (every queued row longer than a chunk
// while the slots last); budgets too small for some or all rows; chunk-order
// determinism of a float sum; and an accumulator too large to split.
#include <nestor/templates.cuh>
#include "runtime_test_util.cuh"

#include <algorithm>
#include <cstring>
#include <utility>

using namespace nestor;

// How a row was finished, added up per row: a row processed twice shows.
constexpr int kInPlace = 1, kReplayed = 256;

template <class T> struct csr_job_t {
  const int *rp;
  const T *data;
  T *out;
  int *mode; // kInPlace: loop ran in place, kReplayed: replayed with a block-computed result
  int rows;
};
using csr_job = csr_job_t<long long>;

// The "original kernel body": rows indexed by the linear thread id of a
// possibly 2D launch; the code before the loop only reads memory.
template <class T, class Phase>
__device__ void csr_body(csr_job_t<T> c, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, Phase phase) {
  const int bx = blockDim.x * blockDim.y;
  const int row = (blockIdx.x + gridDim.x * blockIdx.y) * bx + threadIdx.x + blockDim.x * threadIdx.y;
  if (row >= c.rows) return;
  T acc = T(7 + row);
  if (phase.defer(c.rp[row], c.rp[row + 1])) return;
  if (phase.has_result()) {
    acc = acc + phase.template result<T>();
    atomicAdd(&c.mode[row], kReplayed);
  } else {
    for (int j = c.rp[row]; j < c.rp[row + 1]; ++j) acc += c.data[j];
    atomicAdd(&c.mode[row], kInPlace);
  }
  c.out[row] = acc;
}

template <int CAP> __global__ void dbuf_shared_kernel(csr_job c, long long thr) {
  const long long *data = c.data;
  tmpl::dbuf_shared<int, long long, CAP>(thr, [=](int j) { return data[j]; }, op::add{},
                                         [&](uint3 t, uint3 b, dim3 bd, dim3 gd, auto phase) { csr_body(c, t, b, bd, gd, phase); });
}

template <class T> __global__ void dispatch_kernel(csr_job_t<T> c, tmpl::launch_state st = {}) {
  const T *data = c.data;
  tmpl::dispatch<T>(st, [=](int j) { return data[j]; }, op::add{},
                            [&](uint3 t, uint3 b, dim3 bd, dim3 gd, auto phase) { csr_body(c, t, b, bd, gd, phase); });
}

template <class T> __global__ void reduce_kernel(const int *rp, const T *data, T *out) {
  const int r = blockIdx.x;
  const T v = tmpl::block_reduce_range<T>(rp[r], rp[r + 1], [=](int j) { return data[j]; }, op::max{});
  __shared__ int disagree;
  if (threadIdx.x == 0) disagree = 0;
  __syncthreads();
  const T v0 = tmpl::block_reduce_range<T>(rp[r], rp[r + 1], [=](int j) { return data[j]; }, op::max{});
  if (v0 != v) atomicAdd(&disagree, 1);
  __syncthreads();
  // Every thread must get the same value; a disagreement shows as a wrong result.
  if (threadIdx.x == 0) out[r] = disagree ? T(-999999) : v;
}

// Allocates the device heap until it is exhausted and never frees it.
__global__ void hog_heap() {
  for (size_t size = 4096; size >= 16; size /= 2)
    while (malloc(size)) {
    }
}

struct problem {
  std::vector<int> rp;
  std::vector<long long> data;
  int rows;
};
static problem make_problem(int rows, std::mt19937_64 &rng) {
  problem p{{0}, {}, rows};
  for (int r = 0; r < rows; ++r) {
    const int k = int(rng() % 100);
    const int len = k < 20 ? 0 : k < 70 ? 1 + int(rng() % 12) : k < 93 ? 13 + int(rng() % 60) : 200 + int(rng() % 900);
    p.rp.push_back(p.rp.back() + len);
  }
  p.data.resize(size_t(p.rp.back()) + 1);
  for (auto &d : p.data) d = (long long)(rng() % 2000001) - 1000000;
  return p;
}

struct device_job {
  csr_job j;
  std::vector<int> rp;
  std::vector<long long> want;
};
static device_job upload(const problem &p) {
  device_job d;
  d.j = {test::to_device(p.rp), test::to_device(p.data), test::device_zeros<long long>(p.rows), test::device_zeros<int>(p.rows),
         p.rows};
  d.rp = p.rp;
  for (int r = 0; r < p.rows; ++r) {
    long long a = 7 + r;
    for (int k = p.rp[r]; k < p.rp[r + 1]; ++k) a += p.data[size_t(k)];
    d.want.push_back(a);
  }
  return d;
}

// expect_delayed: 0 none may be replayed, 1 every large row is replayed,
// 2 some large rows are replayed (the rest ran in place: allocation failed).
static void check(test::checker &ck, device_job &d, long long thr, int expect_delayed, const std::string &what) {
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
  auto out = test::to_host(d.j.out, size_t(d.j.rows));
  auto mode = test::to_host(d.j.mode, size_t(d.j.rows));
  long long replayed = 0, large = 0;
  for (int r = 0; r < d.j.rows; ++r) {
    NESTOR_EXPECT(ck, out[size_t(r)], d.want[size_t(r)], what + " row " + std::to_string(r));
    const bool is_large = d.rp[size_t(r) + 1] - d.rp[size_t(r)] >= thr;
    large += is_large;
    replayed += mode[size_t(r)] == kReplayed;
    if (mode[size_t(r)] != kReplayed) NESTOR_EXPECT(ck, mode[size_t(r)], kInPlace, what + " row once " + std::to_string(r));
    if (!is_large) NESTOR_EXPECT(ck, mode[size_t(r)], kInPlace, what + " small row in place " + std::to_string(r));
    if (expect_delayed == 1 && is_large)
      NESTOR_EXPECT(ck, mode[size_t(r)], kReplayed, what + " large row replayed " + std::to_string(r));
    if (expect_delayed == 0) NESTOR_EXPECT(ck, mode[size_t(r)], kInPlace, what + " in place " + std::to_string(r));
  }
  if (expect_delayed == 2) NESTOR_EXPECT_TRUE(ck, replayed > 0 && replayed < large, what + ": some, not all, large rows delayed");
  NESTOR_CUDA_CHECK(cudaMemset(d.j.out, 0, sizeof(long long) * size_t(d.j.rows)));
  NESTOR_CUDA_CHECK(cudaMemset(d.j.mode, 0, sizeof(int) * size_t(d.j.rows)));
}

// ------------------------------------------------ long rows split across blocks

// Short rows (0..40) with the given rows set to the given lengths; data in
// [-1e6, 1e6], so every sum is exact in long long.
static problem make_long_problem(int rows, const std::vector<std::pair<int, long long>> &special, std::mt19937_64 &rng) {
  std::vector<long long> len(static_cast<size_t>(rows));
  for (auto &l : len) l = (long long)(rng() % 41);
  for (const auto &[r, l] : special) len[size_t(r)] = l;
  problem p{{0}, {}, rows};
  for (int r = 0; r < rows; ++r) p.rp.push_back(int(p.rp.back() + len[size_t(r)]));
  p.data.resize(size_t(p.rp.back()) + 1);
  for (auto &d : p.data) d = (long long)(rng() % 2000001) - 1000000;
  return p;
}

// Which queued rows the last launch_templates call split (read back from the
// pool): `should` rows were longer than a chunk, `split` were split, using
// `slots` partial slots.
struct split_seen {
  long long queued = 0, should = 0, split = 0;
  unsigned long long slots = 0;
};
static split_seen read_split(const tmpl::launch_state &st) {
  split_seen m;
  unsigned n = 0;
  NESTOR_CUDA_CHECK(cudaMemcpy(&n, st.large.count, sizeof(unsigned), cudaMemcpyDeviceToHost));
  n = std::min(n, st.large.capacity);
  std::vector<long long> b(n), e(n);
  std::vector<unsigned> base(n);
  if (n) {
    NESTOR_CUDA_CHECK(cudaMemcpy(b.data(), st.large.begin, sizeof(long long) * n, cudaMemcpyDeviceToHost));
    NESTOR_CUDA_CHECK(cudaMemcpy(e.data(), st.large.end, sizeof(long long) * n, cudaMemcpyDeviceToHost));
    NESTOR_CUDA_CHECK(cudaMemcpy(base.data(), st.split.base, sizeof(unsigned) * n, cudaMemcpyDeviceToHost));
  }
  m.queued = n;
  for (unsigned k = 0; k < n; ++k) {
    const long long len = e[k] - b[k];
    const unsigned long long count = tmpl::detail::chunks_of(len, st.split.chunk_shift);
    m.should += count > 1;
    if (base[k] != tmpl::kNotSplit) {
      ++m.split;
      m.slots += count;
    }
  }
  return m;
}

// One launch_templates call of dispatch_kernel on a 1D (96 threads) or 2D
// (16x4 threads, grid 3 wide) grid; the rows it split, and its thread count.
template <class T>
static split_seen run_split(test::checker &ck, csr_job_t<T> job, bool dual, bool two_d, long long thr, tmpl::split_limits limits,
                            unsigned long long *threads = nullptr) {
  tmpl::launch_state last{};
  const unsigned blocks = unsigned((job.rows + 63) / 64);
  const dim3 grid = two_d ? dim3(3, (blocks + 2) / 3) : dim3(unsigned((job.rows + 95) / 96));
  const dim3 block = two_d ? dim3(16, 4) : dim3(96);
  tmpl::launch_templates(dual, grid, block, 0, thr,
                         [&](dim3 g, dim3 b, size_t sh, const tmpl::launch_state &st) {
                           dispatch_kernel<T><<<g, b, sh>>>(job, st);
                           last = st;
                         },
                         limits);
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
  NESTOR_EXPECT_TRUE(ck, last.phase == tmpl::phase_kind::run_large, "last launch is the block-mapped pass");
  if (threads) *threads = (unsigned long long)grid.x * grid.y * block.x * block.y;
  return read_split(last);
}

static void split_tests(test::checker &ck, std::mt19937_64 &rng) {
  const long long C = tmpl::kSplitChunk;
  const int rows = 30000;
  std::vector<std::pair<int, long long>> special = {{5, 1000000}, {100, C},      {101, C + 1},       {102, 2 * C},
                                                    {103, 2 * C + 1}, {15000, 65537}, {rows - 1, 3 * C + 7}};
  for (int k = 2; k <= 11; ++k) special.push_back({200 + k, k * C + k});
  problem p = make_long_problem(rows, special, rng);
  device_job d = upload(p);
  // The rows longer than a chunk: 1M (489 chunks), C + 1 (2), 2C (2), 2C + 1 (3),
  // 65537 (33), 3C + 7 (4) and kC + k (k + 1 each, 75 in all): 16 rows, 608 chunks.
  for (long long thr : {32ll, 1ll})
    for (bool dual : {false, true})
      for (bool two_d : {false, true}) {
        const std::string tag = std::string(dual ? "dual_queue" : "dbuf_global") + (two_d ? " 2D" : " 1D") +
                                " long rows thr=" + std::to_string(thr);
        const split_seen got = run_split(ck, d.j, dual, two_d, thr, {});
        NESTOR_EXPECT(ck, got.should, 16ll, tag + ": rows longer than a chunk");
        NESTOR_EXPECT(ck, got.split, 16ll, tag + ": rows split (the slots suffice)");
        NESTOR_EXPECT(ck, got.slots, 608ull, tag + ": slots");
        check(ck, d, thr, 1, tag);
      }
  for (bool dual : {false, true}) {
    const std::string tag = std::string(dual ? "dual_queue" : "dbuf_global") + " budget";
    // 300 slots: the 1M row alone needs 489 and is never split; the other 15 fit.
    split_seen got = run_split(ck, d.j, dual, false, 32, {C, 300});
    NESTOR_EXPECT(ck, got.split, 15ll, tag + " 300: all but the 1M row split");
    NESTOR_EXPECT(ck, got.slots, 119ull, tag + " 300: slots");
    check(ck, d, 32, 1, tag + " 300");
    // 60 slots for 119 wanted: the rows that reserve first are split, the
    // others not (which depends on the order of their atomics); every row is
    // still reduced once and replayed once.
    got = run_split(ck, d.j, dual, true, 32, {C, 60});
    NESTOR_EXPECT_TRUE(ck, got.split > 0 && got.split < 15 && got.slots <= 60, tag + " 60: some rows split, within the slots");
    check(ck, d, 32, 1, tag + " 60");
    // One slot: no row of two chunks or more fits; nothing is split.
    got = run_split(ck, d.j, dual, true, 32, {C, 1});
    NESTOR_EXPECT(ck, got.split, 0ll, tag + " 1: nothing split");
    check(ck, d, 32, 1, tag + " 1");
  }
  // Small chunks on the random rows (up to 1,100 long): most delayed rows want
  // to be split, many in dozens or hundreds of chunks, more than the slots
  // (one per thread) hold at chunk 1 and 16. The pool is reused from the runs above.
  problem q = make_problem(33333, rng);
  device_job e = upload(q);
  for (long long chunk : {1ll, 16ll, 64ll})
    for (bool dual : {false, true}) {
      const std::string tag = std::string(dual ? "dual_queue" : "dbuf_global") + " chunk " + std::to_string(chunk);
      unsigned long long threads = 0;
      const split_seen got = run_split(ck, e.j, dual, chunk == 16, 1, {chunk, 0}, &threads);
      NESTOR_EXPECT_TRUE(ck, got.split > 0 && got.slots <= threads, tag + ": rows split, within the slots");
      if (chunk == 1) NESTOR_EXPECT_TRUE(ck, got.split < got.should, tag + ": the slots ran out");
      check(ck, e, 1, 1, tag);
    }
}

// A float sum whose value depends on the order of its additions: the split
// row's partials are combined in chunk order, so every run, every grid shape
// and both templates give the same bits.
static void determinism_test(test::checker &ck, std::mt19937_64 &rng) {
  const long long C = tmpl::kSplitChunk;
  problem shape = make_long_problem(4000, {{7, 1000000}, {8, 5 * C + 3}, {9, C + 1}}, rng);
  std::uniform_real_distribution<float> u(0.5f, 1.5f);
  std::vector<float> data(shape.data.size());
  for (size_t j = 0; j < data.size(); ++j) data[j] = u(rng) * (j % 97 == 0 ? 1e6f : 1.f);
  // The values are order-sensitive: forward and backward float sums of row 7 differ.
  float fwd = 0.f, bwd = 0.f;
  for (int j = shape.rp[7]; j < shape.rp[8]; ++j) fwd += data[size_t(j)];
  for (int j = shape.rp[8] - 1; j >= shape.rp[7]; --j) bwd += data[size_t(j)];
  NESTOR_EXPECT_TRUE(ck, fwd != bwd, "determinism: the test's row 7 is order-sensitive in float");
  csr_job_t<float> job{test::to_device(shape.rp), test::to_device(data), test::device_zeros<float>(size_t(shape.rows)),
                       test::device_zeros<int>(size_t(shape.rows)), shape.rows};
  std::vector<float> first;
  for (int run = 0; run < 2; ++run)
    for (bool dual : {false, true})
      for (bool two_d : {false, true}) {
        const std::string tag = "determinism run " + std::to_string(run) + (dual ? " dual_queue" : " dbuf_global") +
                                (two_d ? " 2D" : " 1D");
        const split_seen seen = run_split(ck, job, dual, two_d, 32, {});
        NESTOR_EXPECT(ck, seen.split, 3ll, tag + ": rows split");
        auto out = test::to_host(job.out, size_t(shape.rows));
        auto mode = test::to_host(job.mode, size_t(shape.rows));
        for (int r = 0; r < shape.rows; ++r) {
          double want = 7 + r;
          for (int j = shape.rp[size_t(r)]; j < shape.rp[size_t(r) + 1]; ++j) want += data[size_t(j)];
          NESTOR_EXPECT(ck, out[size_t(r)], float(want), tag + " row " + std::to_string(r));
          const bool large = shape.rp[size_t(r) + 1] - shape.rp[size_t(r)] >= 32;
          NESTOR_EXPECT(ck, mode[size_t(r)], large ? kReplayed : kInPlace, tag + " mode row " + std::to_string(r));
        }
        if (first.empty()) first = out;
        NESTOR_EXPECT_TRUE(ck, std::memcmp(first.data(), out.data(), sizeof(float) * out.size()) == 0,
                           tag + ": the same bits as the first run");
        NESTOR_CUDA_CHECK(cudaMemset(job.mode, 0, sizeof(int) * size_t(shape.rows)));
        NESTOR_CUDA_CHECK(cudaMemset(job.out, 0, sizeof(float) * size_t(shape.rows)));
      }
}

// An accumulator larger than a partial slot (24 bytes): never split, still right.
struct triple {
  long long sum, count, twice;
};
struct add_triple {
  template <class T> __host__ __device__ static constexpr T identity() { return T{0, 0, 0}; }
  template <class T> __host__ __device__ T operator()(T a, T b) const {
    return T{a.sum + b.sum, a.count + b.count, a.twice + b.twice};
  }
};
static_assert(tmpl::kSplittable<long long> && tmpl::kSplittable<float> && !tmpl::kSplittable<triple>);

__global__ void triple_kernel(csr_job c, tmpl::launch_state st = {}) {
  const long long *data = c.data;
  tmpl::dispatch<triple>(st, [=](int j) { return triple{data[j], 1, 2 * data[j]}; }, add_triple{},
                         [&](uint3 t, uint3 b, dim3 bd, dim3 gd, auto phase) {
                           const int row = int((b.x + gd.x * b.y) * (bd.x * bd.y) + t.x + bd.x * t.y);
                           if (row >= c.rows) return;
                           triple acc{7 + row, 0, 0};
                           if (phase.defer(c.rp[row], c.rp[row + 1])) return;
                           if (phase.has_result()) {
                             acc = add_triple{}(acc, phase.template result<triple>());
                             atomicAdd(&c.mode[row], kReplayed);
                           } else {
                             for (int j = c.rp[row]; j < c.rp[row + 1]; ++j) acc = add_triple{}(acc, triple{c.data[j], 1, 2 * c.data[j]});
                             atomicAdd(&c.mode[row], kInPlace);
                           }
                           c.out[row] = acc.sum + acc.count + acc.twice;
                         });
}

static void large_accumulator_test(test::checker &ck, std::mt19937_64 &rng) {
  problem p = make_long_problem(5000, {{3, 1000000}, {4, 3 * tmpl::kSplitChunk}}, rng);
  device_job d = upload(p);
  for (int r = 0; r < p.rows; ++r) { // 7 + row + sum + count + 2 * sum
    d.want[size_t(r)] = 3 * (d.want[size_t(r)] - 7 - r) + 7 + r + (p.rp[size_t(r) + 1] - p.rp[size_t(r)]);
  }
  for (bool dual : {false, true}) {
    tmpl::launch_state last{};
    tmpl::launch_templates(dual, dim3((p.rows + 127) / 128), dim3(128), 0, 32,
                           [&](dim3 g, dim3 b, size_t sh, const tmpl::launch_state &st) {
                             triple_kernel<<<g, b, sh>>>(d.j, st);
                             last = st;
                           });
    NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
    const split_seen seen = read_split(last);
    NESTOR_EXPECT_TRUE(ck, seen.should == 2 && seen.split == 0, std::string(dual ? "dual_queue" : "dbuf_global") + " 24-byte R: not split");
    check(ck, d, 32, 1, std::string(dual ? "dual_queue" : "dbuf_global") + " 24-byte R");
  }
}

int main(int argc, char **argv) {
  test::require_gpu_or_skip();
  const bool tiny_heap = argc > 1 && std::strcmp(argv[1], "--tiny-heap") == 0;
  test::checker ck;
  std::mt19937_64 rng(12);
  if (tiny_heap) {
    // A small device heap, then used up by hog_heap: every overflow
    // allocation fails and the rows beyond the 8 shared slots of a block run
    // in place. (A small heap alone is not enough: blocks free their overflow
    // and the next ones reuse it.)
    NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
    hog_heap<<<1, 1>>>();
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
    problem p = make_problem(40000, rng);
    device_job d = upload(p);
    dbuf_shared_kernel<8><<<(p.rows + 255) / 256, 256>>>(d.j, 1);
    check(ck, d, 1, 2, "dbuf_shared<8> tiny heap");
    return ck.finish("runtime_templates_test --tiny-heap");
  }

  // block_reduce_range, odd block sizes.
  for (unsigned threads : {32u, 45u, 100u, 256u, 1000u}) {
    problem p = make_problem(300, rng);
    int *rp = test::to_device(p.rp);
    long long *data = test::to_device(p.data), *out = test::device_zeros<long long>(size_t(p.rows));
    reduce_kernel<long long><<<p.rows, threads>>>(rp, data, out);
    NESTOR_CUDA_CHECK(cudaGetLastError());
    auto got = test::to_host(out, size_t(p.rows));
    for (int r = 0; r < p.rows; ++r) {
      long long want = op::max::identity<long long>();
      for (int k = p.rp[size_t(r)]; k < p.rp[size_t(r) + 1]; ++k) want = std::max(want, p.data[size_t(k)]);
      NESTOR_EXPECT(ck, got[size_t(r)], want, "block_reduce_range max, " + std::to_string(threads) + " threads, row " + std::to_string(r));
    }
  }

  split_tests(ck, rng);
  determinism_test(ck, rng);
  large_accumulator_test(ck, rng);

  for (int rows : {1, 77, 5000, 33333}) {
    problem p = make_problem(rows, rng);
    device_job d = upload(p);
    for (long long thr : {1ll, 32ll, 64ll, 1ll << 40}) {
      const std::string tag = " rows=" + std::to_string(rows) + " thr=" + std::to_string(thr);
      const int expect = thr > (1ll << 30) ? 0 : 1;
      // Buffer as large as the block; buffer of 8 with the overflow (100-thread blocks).
      dbuf_shared_kernel<128><<<(rows + 127) / 128, 128>>>(d.j, thr);
      check(ck, d, thr, expect, "dbuf_shared<128>" + tag);
      dbuf_shared_kernel<8><<<(rows + 99) / 100, 100>>>(d.j, thr);
      check(ck, d, thr, expect, "dbuf_shared<8> overflow" + tag);
      // dbuf-global and dual-queue, 1D and 2D (16x4 blocks, grid 3 wide).
      for (bool dual : {false, true}) {
        const std::string name = dual ? "dual_queue" : "dbuf_global";
        tmpl::launch_templates(dual, dim3((rows + 95) / 96), dim3(96), 0, thr,
                               [&](dim3 g, dim3 b, size_t sh, const tmpl::launch_state &st) { dispatch_kernel<<<g, b, sh>>>(d.j, st); });
        check(ck, d, thr, expect, name + " 1D" + tag);
        const unsigned blocks = unsigned((rows + 63) / 64);
        tmpl::launch_templates(dual, dim3(3, (blocks + 2) / 3), dim3(16, 4), 0, thr,
                               [&](dim3 g, dim3 b, size_t sh, const tmpl::launch_state &st) { dispatch_kernel<<<g, b, sh>>>(d.j, st); });
        check(ck, d, thr, expect, name + " 2D" + tag);
      }
    }
    dispatch_kernel<<<(rows + 127) / 128, 128>>>(d.j);
    check(ck, d, 1, 0, "no state: the original kernel rows=" + std::to_string(rows));
  }
  return ck.finish("runtime_templates_test");
}
