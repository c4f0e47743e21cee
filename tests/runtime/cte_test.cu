// CTE (cte::for_each_index) against a sequential reference over seeded random
// irregular task sizes: empty tasks, tasks longer than a warp (up to 400),
// both modes (scanned with CSR offsets, scanned given non-consecutive ranges,
// disjoint), full warps and partial warps (threads returning early -> the 1D
// fallback), int/float sums, a non-commutative associative reduction (checks
// that values are combined in index order) and task descriptors.
#include <nestor/cte.cuh>
#include "runtime_test_util.cuh"

using namespace nestor;

constexpr unsigned kBlock = 128;

// Affine map v -> v * a + b; combine(x, y) applies x then y. Associative, not
// commutative: any reordering of the fine tasks changes the result.
struct affine {
  unsigned a, b;
};
__host__ __device__ inline affine compose(affine x, affine y) { return {x.a * y.a, x.b * y.a + y.b}; }

struct cte_results {
  int* sum_int;
  float* sum_float;
  affine* chain;
  int* max_scaled;
  int* full_warp;  // 1 if the warp was full when it called (the cooperative path)
};

// PadWarp: threads past the last task take an empty range instead of returning,
// so every warp stays full.
template <class Mode, bool PadWarp, class Idx>
__global__ void cte_kernel(const Idx* begins, const Idx* ends, long long tasks, const int* data, const unsigned* ca,
                           const unsigned* cb, const int* scale, cte_results out) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (!PadWarp && t >= tasks) return;
  const bool real = t < tasks;
  const Idx begin = real ? begins[t] : Idx(0);
  const Idx end = real ? ends[t] : Idx(0);
  const int task_scale = real ? scale[t] : 0;
  const bool full = __activemask() == 0xffffffffu;

  const int si = cte::for_each_index<kBlock, Mode>(
      begin, end, [=](Idx i) { return data[i]; }, [](int a, int b) { return a + b; }, int(t));
  const float sf = cte::for_each_index<kBlock, Mode>(
      begin, end, [=](Idx i) { return 0.5f + float(data[i] & 1023) / 1024.0f; },
      [](float a, float b) { return a + b; }, 0.25f);
  const affine ch = cte::for_each_index<kBlock, Mode>(
      begin, end, [=](Idx i) { return affine{ca[i], cb[i]}; }, [](affine x, affine y) { return compose(x, y); },
      affine{1u, unsigned(t)});
  // The descriptor `s` is the owning task's scale, not the calling thread's.
  const int mx = cte::for_each_index<kBlock, Mode>(
      begin, end, [=](Idx i, int s) { return data[i] * s; }, [](int a, int b) { return a > b ? a : b; }, -1000000000,
      task_scale);
  if (real) {
    out.sum_int[t] = si;
    out.sum_float[t] = sf;
    out.chain[t] = ch;
    out.max_scaled[t] = mx;
    out.full_warp[t] = full ? 1 : 0;
  }
}

int random_task_size(std::mt19937_64& rng) {
  const int r = int(rng() % 100);
  if (r < 25) return 0;
  if (r < 70) return 1 + int(rng() % 8);
  if (r < 90) return 9 + int(rng() % 32);
  return 41 + int(rng() % 360);
}

enum class layout { csr, gaps, random };

template <class Mode, bool PadWarp, class Idx>
void run_case(test::checker& ck, const std::string& name, layout lay, long long tasks, std::mt19937_64& rng,
              bool expect_full_warps) {
  std::vector<Idx> begins(tasks), ends(tasks);
  long long pos = 0;
  for (long long t = 0; t < tasks; ++t) {
    const int size = random_task_size(rng);
    if (lay == layout::gaps) pos += int(rng() % 3);  // ranges not consecutive
    begins[t] = Idx(pos);
    ends[t] = Idx(pos + size);
    pos += size;
  }
  long long elems = pos + 1;
  if (lay == layout::random) {
    // Arbitrary (possibly overlapping) ranges anywhere in the data.
    for (long long t = 0; t < tasks; ++t) {
      const long long size = ends[t] - begins[t];
      const long long b = (long long)(rng() % (unsigned long long)(elems));
      begins[t] = Idx(b);
      ends[t] = Idx(std::min(elems, b + size));
    }
  }
  std::vector<int> data(elems), scale(tasks);
  std::vector<unsigned> ca(elems), cb(elems);
  for (auto& d : data) d = int(rng() % 20001) - 10000;
  for (auto& c : ca) c = unsigned(rng()) | 1u;
  for (auto& c : cb) c = unsigned(rng());
  for (auto& s : scale) s = int(rng() % 7) - 3;

  Idx* d_b = test::to_device(begins);
  Idx* d_e = test::to_device(ends);
  int* d_data = test::to_device(data);
  unsigned* d_ca = test::to_device(ca);
  unsigned* d_cb = test::to_device(cb);
  int* d_scale = test::to_device(scale);
  cte_results out{test::device_zeros<int>(tasks), test::device_zeros<float>(tasks), test::device_zeros<affine>(tasks),
                  test::device_zeros<int>(tasks), test::device_zeros<int>(tasks)};
  const unsigned blocks = unsigned((tasks + kBlock - 1) / kBlock);
  cte_kernel<Mode, PadWarp, Idx><<<blocks, kBlock>>>(d_b, d_e, tasks, d_data, d_ca, d_cb, d_scale, out);
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());

  auto si = test::to_host(out.sum_int, tasks);
  auto sf = test::to_host(out.sum_float, tasks);
  auto ch = test::to_host(out.chain, tasks);
  auto mx = test::to_host(out.max_scaled, tasks);
  auto full = test::to_host(out.full_warp, tasks);
  long long full_tasks = 0, empty = 0, longer_than_warp = 0;
  for (long long t = 0; t < tasks; ++t) {
    int want_i = int(t);
    float want_f = 0.25f;
    affine want_c{1u, unsigned(t)};
    int want_m = -1000000000;
    for (long long i = begins[t]; i < ends[t]; ++i) {
      want_i += data[i];
      want_f += 0.5f + float(data[i] & 1023) / 1024.0f;
      want_c = compose(want_c, affine{ca[i], cb[i]});
      want_m = std::max(want_m, data[i] * scale[t]);
    }
    const long long size = ends[t] - begins[t];
    empty += size == 0;
    longer_than_warp += size > 32;
    full_tasks += full[t];
    const std::string at = name + " task " + std::to_string(t) + " size " + std::to_string(size);
    NESTOR_EXPECT(ck, si[t], want_i, at + " int sum");
    NESTOR_EXPECT(ck, sf[t], want_f, at + " float sum");
    NESTOR_EXPECT_TRUE(ck, ch[t].a == want_c.a && ch[t].b == want_c.b, at + " ordered affine chain");
    NESTOR_EXPECT(ck, mx[t], want_m, at + " max with descriptor");
  }
  NESTOR_EXPECT_TRUE(ck, empty > 0 && longer_than_warp > 0, name + ": input has empty tasks and tasks longer than a warp");
  // Coverage of both paths: full warps take the cooperative path; with early
  // return the partial last warp takes the fallback.
  if (expect_full_warps) NESTOR_EXPECT_TRUE(ck, full_tasks == tasks, name + ": every warp was full");
  else NESTOR_EXPECT_TRUE(ck, full_tasks > 0 && full_tasks < tasks, name + ": both full and partial warps ran");
  std::printf("%s: %lld tasks (%lld empty, %lld longer than 32), %lld fine tasks\n", name.c_str(), tasks, empty,
              longer_than_warp, elems - 1);

  for (void* d : {(void*)d_b, (void*)d_e, (void*)d_data, (void*)d_ca, (void*)d_cb, (void*)d_scale,
                  (void*)out.sum_int, (void*)out.sum_float, (void*)out.chain, (void*)out.max_scaled,
                  (void*)out.full_warp})
    NESTOR_CUDA_CHECK(cudaFree(d));
}

// Lanes of one warp calling from two different branches: neither call sees a
// full warp, so both must fall back and still be right.
__global__ void divergent_kernel(const int* rowptr, const int* data, int tasks, int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tasks) return;
  auto map = [=](int i) { return data[i]; };
  auto add = [](int a, int b) { return a + b; };
  int r;
  if (t & 1) r = cte::for_each_index<kBlock, cte::scanned>(rowptr[t], rowptr[t + 1], map, add, 0);
  else r = cte::for_each_index<kBlock, cte::disjoint>(rowptr[t], rowptr[t + 1], map, add, 0) + 0;
  out[t] = r;
}

void run_divergent(test::checker& ck, std::mt19937_64& rng) {
  const int tasks = 256;
  std::vector<int> rowptr(tasks + 1, 0);
  for (int t = 0; t < tasks; ++t) rowptr[t + 1] = rowptr[t] + random_task_size(rng);
  std::vector<int> data(rowptr[tasks] + 1);
  for (auto& d : data) d = int(rng() % 1000);
  int* d_rp = test::to_device(rowptr);
  int* d_data = test::to_device(data);
  int* d_out = test::device_zeros<int>(tasks);
  divergent_kernel<<<(tasks + kBlock - 1) / kBlock, kBlock>>>(d_rp, d_data, tasks, d_out);
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
  auto out = test::to_host(d_out, tasks);
  for (int t = 0; t < tasks; ++t) {
    int want = 0;
    for (int i = rowptr[t]; i < rowptr[t + 1]; ++i) want += data[i];
    NESTOR_EXPECT(ck, out[t], want, "divergent call task " + std::to_string(t));
  }
  NESTOR_CUDA_CHECK(cudaFree(d_rp));
  NESTOR_CUDA_CHECK(cudaFree(d_data));
  NESTOR_CUDA_CHECK(cudaFree(d_out));
}

int main() {
  test::require_gpu_or_skip();
  test::checker ck;
  std::mt19937_64 rng(424242);
  // 1000 tasks: 31 full warps and a last warp of 8.
  run_case<cte::scanned, true, int>(ck, "scanned csr padded", layout::csr, 1000, rng, true);
  run_case<cte::scanned, false, int>(ck, "scanned csr early-return", layout::csr, 1000, rng, false);
  run_case<cte::scanned, true, int>(ck, "scanned hint on gapped ranges", layout::gaps, 1000, rng, true);
  run_case<cte::disjoint, true, int>(ck, "disjoint gapped padded", layout::gaps, 1000, rng, true);
  run_case<cte::disjoint, true, int>(ck, "disjoint random padded", layout::random, 1000, rng, true);
  run_case<cte::disjoint, false, int>(ck, "disjoint random early-return", layout::random, 1000, rng, false);
  run_case<cte::scanned, true, long long>(ck, "scanned csr long long", layout::csr, 777, rng, true);
  run_case<cte::disjoint, false, unsigned>(ck, "disjoint unsigned early-return", layout::random, 4100, rng, false);
  run_divergent(ck, rng);
  return ck.finish("cte_test");
}
