// dpar-opt (nestor/templates.cuh): every block buffers its large rows and
// launches one child grid for them, which reduces each row and finishes it on
// behalf of its owner. Checks results against a CPU reference on irregular
// CSR rows (block sizes 96 and 128, thresholds 1, 32, none), that the large
// rows really were finished by the child (mode 2), and, with a pending-launch
// limit too small for the grid, that the blocks whose launch fails process
// their rows themselves, and in both cases the same bits for float rows (the
// child's reduction order, whoever runs it). Built with -rdc (dynamic parallelism).
#include <nestor/templates.cuh>
#include "runtime_test_util.cuh"

#include <cstring>

using namespace nestor;

struct job {
  const int *rp;
  const long long *data;
  long long *out;
  int *mode; // 1 in place, 2 finished with a delayed result
  int rows;
};

template <class Phase>
__device__ void row_body(job c, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, Phase phase) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= c.rows) return;
  long long acc = 3 - row;
  if (phase.defer(c.rp[row], c.rp[row + 1])) return;
  if (phase.has_result()) {
    acc += phase.template result<long long>();
    c.mode[row] = 2;
  } else {
    for (int j = c.rp[row]; j < c.rp[row + 1]; ++j) acc += c.data[j];
    c.mode[row] = 1;
  }
  c.out[row] = acc;
}

__global__ void dpar_child(job c, tmpl::dpar_batch<int> b) {
  const long long *data = c.data;
  tmpl::dpar_opt_child<long long>(b, [=](int j) { return data[j]; }, op::add{},
                                  [&](uint3 t, uint3 bi, dim3 bd, dim3 gd, auto ph) { row_body(c, t, bi, bd, gd, ph); });
}

__global__ void dpar_parent(job c, long long thr) {
  const long long *data = c.data;
  tmpl::dpar_opt<int, long long>(thr, [=](int j) { return data[j]; }, op::add{},
                                 [&](uint3 t, uint3 bi, dim3 bd, dim3 gd, auto ph) { row_body(c, t, bi, bd, gd, ph); },
                                 [&](tmpl::dpar_batch<int> b) { dpar_child<<<b.count, tmpl::kBlockMappedThreads>>>(c, b); });
}

// Float rows: the bits of a delayed row must not depend on whether the child
// ran it or, after a failed launch (the pending-launch limit, which depends
// on timing) or allocation, the parent block: both reduce in the order of a
// kBlockMappedThreads block (block_reduce_range_as), emulated by want_bits.
struct fjob {
  const int *rp;
  const float *data;
  float *out;
  int rows;
};

template <class Phase>
__device__ void frow_body(fjob c, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, Phase phase) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= c.rows) return;
  float acc = 0.0f;
  if (phase.defer(c.rp[row], c.rp[row + 1])) return;
  if (phase.has_result()) acc += phase.template result<float>();
  else
    for (int j = c.rp[row]; j < c.rp[row + 1]; ++j) acc += c.data[j];
  c.out[row] = acc;
}

__global__ void fdpar_child(fjob c, tmpl::dpar_batch<int> b) {
  const float *data = c.data;
  tmpl::dpar_opt_child<float>(b, [=](int j) { return data[j]; }, op::add{},
                              [&](uint3 t, uint3 bi, dim3 bd, dim3 gd, auto ph) { frow_body(c, t, bi, bd, gd, ph); });
}

__global__ void fdpar_parent(fjob c, long long thr) {
  const float *data = c.data;
  tmpl::dpar_opt<int, float>(thr, [=](int j) { return data[j]; }, op::add{},
                             [&](uint3 t, uint3 bi, dim3 bd, dim3 gd, auto ph) { frow_body(c, t, bi, bd, gd, ph); },
                             [&](tmpl::dpar_batch<int> b) { fdpar_child<<<b.count, tmpl::kBlockMappedThreads>>>(c, b); });
}

/// The sum of data[b, e) in the order of block_reduce_range with W threads.
float block_order_sum(const std::vector<float> &data, int b, int e, unsigned W) {
  std::vector<float> lane(W, 0.0f);
  for (unsigned v = 0; v < W; ++v)
    for (long long i = b + (long long)v; i < e; i += W) lane[v] = lane[v] + data[size_t(i)];
  float t = 0.0f;
  for (unsigned w = 0; w < W / 32; ++w) {
    float *l = lane.data() + 32 * w;
    for (unsigned d = 16; d > 0; d >>= 1)
      for (unsigned x = 0; x + d < 32; ++x) l[x] = l[x] + l[x + d];
    t = w == 0 ? l[0] : t + l[0];
  }
  return t;
}

void check_float_bits(test::checker &ck, std::mt19937_64 &rng) {
  for (int rows : {300, 20011}) {
    std::vector<int> rp{0};
    for (int r = 0; r < rows; ++r) {
      const int k = int(rng() % 100);
      rp.push_back(rp.back() + (k < 70 ? int(rng() % 20) : k < 95 ? 40 + int(rng() % 200) : 500 + int(rng() % 3000)));
    }
    std::vector<float> data(size_t(rp.back()) + 1);
    // Magnitudes over 2^20: a different order of the additions gives different bits.
    for (auto &d : data) d = float((long long)(rng() % 2000001) - 1000000) * 1e-3f * float(1u << (rng() % 20));
    fjob c{test::to_device(rp), test::to_device(data), test::device_zeros<float>(size_t(rows)), rows};
    for (unsigned threads : {32u, 96u, 128u}) {
      const long long thr = 32;
      fdpar_parent<<<(rows + threads - 1) / threads, threads>>>(c, thr);
      NESTOR_CUDA_CHECK(cudaGetLastError());
      NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
      auto out = test::to_host(c.out, size_t(rows));
      long long mismatched = 0, first = -1;
      for (int r = 0; r < rows; ++r) {
        const int b = rp[size_t(r)], e = rp[size_t(r) + 1];
        float want = 0.0f;
        if (e - b >= thr) want = 0.0f + block_order_sum(data, b, e, tmpl::kBlockMappedThreads);
        else
          for (int j = b; j < e; ++j) want += data[size_t(j)];
        if (std::memcmp(&want, &out[size_t(r)], sizeof(float)) != 0 && mismatched++ == 0) first = r;
      }
      NESTOR_EXPECT(ck, mismatched, 0ll,
                    "float rows=" + std::to_string(rows) + " threads=" + std::to_string(threads) +
                        ": rows not in the child's order (first: " + std::to_string(first) + ")");
      NESTOR_CUDA_CHECK(cudaMemset(c.out, 0, sizeof(float) * size_t(rows)));
    }
  }
}

int main(int argc, char **argv) {
  test::require_gpu_or_skip();
  const bool few_launches = argc > 1 && std::string(argv[1]) == "--few-pending-launches";
  if (few_launches) NESTOR_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 32));
  test::checker ck;
  std::mt19937_64 rng(5);
  for (int rows : {1, 300, 20011, 60000}) {
    std::vector<int> rp{0};
    for (int r = 0; r < rows; ++r) {
      const int k = int(rng() % 100);
      rp.push_back(rp.back() + (k < 20 ? 0 : k < 75 ? 1 + int(rng() % 20) : k < 95 ? 20 + int(rng() % 100) : 300 + int(rng() % 2000)));
    }
    std::vector<long long> data(size_t(rp.back()) + 1);
    for (auto &d : data) d = (long long)(rng() % 100001) - 50000;
    job c{test::to_device(rp), test::to_device(data), test::device_zeros<long long>(size_t(rows)), test::device_zeros<int>(size_t(rows)), rows};
    for (long long thr : {1ll, 32ll, 1ll << 40})
      for (unsigned threads : {96u, 128u}) {
        dpar_parent<<<(rows + threads - 1) / threads, threads>>>(c, thr);
        NESTOR_CUDA_CHECK(cudaGetLastError());
        NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
        const std::string tag = "rows=" + std::to_string(rows) + " thr=" + std::to_string(thr) + " threads=" + std::to_string(threads);
        auto out = test::to_host(c.out, size_t(rows));
        auto mode = test::to_host(c.mode, size_t(rows));
        long long delayed = 0, large = 0;
        for (int r = 0; r < rows; ++r) {
          long long want = 3 - r;
          for (int j = rp[size_t(r)]; j < rp[size_t(r) + 1]; ++j) want += data[size_t(j)];
          NESTOR_EXPECT(ck, out[size_t(r)], want, tag + " row " + std::to_string(r));
          const bool is_large = rp[size_t(r) + 1] - rp[size_t(r)] >= thr;
          large += is_large;
          delayed += mode[size_t(r)] == 2;
          if (!is_large) NESTOR_EXPECT(ck, mode[size_t(r)], 1, tag + " small row in place " + std::to_string(r));
        }
        // Every large row is finished with a delayed result (by the child, or by its own block after a failed launch).
        NESTOR_EXPECT(ck, delayed, large, tag + " large rows delayed");
        NESTOR_CUDA_CHECK(cudaMemset(c.out, 0, sizeof(long long) * size_t(rows)));
        NESTOR_CUDA_CHECK(cudaMemset(c.mode, 0, sizeof(int) * size_t(rows)));
      }
  }
  check_float_bits(ck, rng);
  return ck.finish(few_launches ? "runtime_dpar_opt_test --few-pending-launches" : "runtime_dpar_opt_test");
}
