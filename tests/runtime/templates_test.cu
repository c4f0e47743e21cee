// Load-balancing templates (nestor/templates.cuh): block_reduce_range on block
// sizes that are not multiples of 32; dbuf_shared with a buffer as large as
// the block, with a small buffer (global overflow) and, with --tiny-heap, with
// an overflow allocation that fails (iterations run in place); dbuf-global and
// dual-queue through launch_templates on 1D and 2D grids; and a launch with
// no state (the original kernel). Every run checks the results against a CPU
// reference and how each row was processed (in place or replayed), so a
// template that silently delays nothing fails.
#include <nestor/templates.cuh>
#include "runtime_test_util.cuh"

#include <cstring>

using namespace nestor;

struct csr_job {
  const int *rp;
  const long long *data;
  long long *out;
  int *mode; // 1: loop ran in place, 2: replayed with a block-computed result
  int rows;
};

// The "original kernel body": rows indexed by the linear thread id of a
// possibly 2D launch; the code before the loop only reads memory.
template <class Phase>
__device__ void csr_body(csr_job c, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, Phase phase) {
  const int bx = blockDim.x * blockDim.y;
  const int row = (blockIdx.x + gridDim.x * blockIdx.y) * bx + threadIdx.x + blockDim.x * threadIdx.y;
  if (row >= c.rows) return;
  long long acc = 7 + row;
  if (phase.defer(c.rp[row], c.rp[row + 1])) return;
  if (phase.has_result()) {
    acc = acc + phase.template result<long long>();
    c.mode[row] = 2;
  } else {
    for (int j = c.rp[row]; j < c.rp[row + 1]; ++j) acc += c.data[j];
    c.mode[row] = 1;
  }
  c.out[row] = acc;
}

template <int CAP> __global__ void dbuf_shared_kernel(csr_job c, long long thr) {
  const long long *data = c.data;
  tmpl::dbuf_shared<int, long long, CAP>(thr, [=](int j) { return data[j]; }, op::add{},
                                         [&](uint3 t, uint3 b, dim3 bd, dim3 gd, auto phase) { csr_body(c, t, b, bd, gd, phase); });
}

__global__ void dispatch_kernel(csr_job c, tmpl::launch_state st = {}) {
  const long long *data = c.data;
  tmpl::dispatch<long long>(st, [=](int j) { return data[j]; }, op::add{},
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
    replayed += mode[size_t(r)] == 2;
    if (!is_large) NESTOR_EXPECT(ck, mode[size_t(r)], 1, what + " small row in place " + std::to_string(r));
    if (expect_delayed == 1 && is_large) NESTOR_EXPECT(ck, mode[size_t(r)], 2, what + " large row replayed " + std::to_string(r));
    if (expect_delayed == 0) NESTOR_EXPECT(ck, mode[size_t(r)], 1, what + " in place " + std::to_string(r));
  }
  if (expect_delayed == 2) NESTOR_EXPECT_TRUE(ck, replayed > 0 && replayed < large, what + ": some, not all, large rows delayed");
  NESTOR_CUDA_CHECK(cudaMemset(d.j.out, 0, sizeof(long long) * size_t(d.j.rows)));
  NESTOR_CUDA_CHECK(cudaMemset(d.j.mode, 0, sizeof(int) * size_t(d.j.rows)));
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
