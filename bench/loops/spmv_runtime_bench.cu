// bench_loops_runtime: CSR SpMV (y = A x, float) with the loop runtimes that
// rewritten kernels use, on a regular and a power-law matrix (seeded
// generators):
//   1 thread per row (the 1D decomposition every other variant is compared to),
//   sub-warp decomposition W = 2, 4, 8, 16, 32 (nestor/subwarp.cuh),
//   CTE scanned and disjoint (nestor/cte.cuh),
//   cuSPARSE SpMV (CSR, ALG1) as the library reference, when linked.
// Each variant's y is checked against a CPU reference (double accumulation)
// before its time is printed. Time = median of --repeats launches timed with
// cudaEvent; bandwidth = compulsory bytes (values, column indices, row offsets,
// x and y once) / time, also as a fraction of a device-to-device cudaMemcpy
// measured in the same run. This is a benchmark, not a test: it does not judge
// speed; it exits non-zero only when a result is wrong.
//
// Usage: bench_loops_runtime [--rows N] [--repeats R] [--seed S]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nestor/cte.cuh>
#include <nestor/gpu_test.cuh>
#include <nestor/subwarp.cuh>

#if !NESTOR_HAVE_CUSPARSE
#error "cuSPARSE is the reference this bench compares with: build it with -DNESTOR_HAVE_CUSPARSE=1 -lcusparse"
#endif
#if NESTOR_HAVE_CUSPARSE
#include <cusparse.h>
#define CUSPARSE_CHECK(expr)                                                                 \
  do {                                                                                       \
    cusparseStatus_t s_ = (expr);                                                            \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                     \
      std::fprintf(stderr, "%s:%d: cuSPARSE error %s\n", __FILE__, __LINE__, cusparseGetErrorString(s_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)
#endif

using namespace nestor;

constexpr unsigned kBlock = 256;

struct csr {
  std::string name;
  int rows = 0, cols = 0;
  std::vector<int> rowptr, col;
  std::vector<float> val;
};

// Banded matrix, 16 non-zeros in every row: no imbalance, good locality.
csr make_regular(int rows, std::mt19937_64& rng) {
  csr m;
  m.name = "regular (16/row, banded)";
  m.rows = m.cols = rows;
  m.rowptr.resize(rows + 1);
  const int per_row = 16;
  std::uniform_real_distribution<float> v(-1.0f, 1.0f);
  for (int r = 0; r < rows; ++r) {
    m.rowptr[r] = int(m.col.size());
    for (int k = 0; k < per_row; ++k) {
      m.col.push_back(((r - per_row / 2 + k) % rows + rows) % rows);
      m.val.push_back(v(rng));
    }
  }
  m.rowptr[rows] = int(m.col.size());
  return m;
}

// Row lengths from a Pareto law (tail index 1.2: P(len > x) = (2/x)^1.2, so
// lengths >= 2, mean about 11, capped at 20000),
// uniformly random columns: a few very long rows among many short ones.
csr make_power_law(int rows, std::mt19937_64& rng) {
  csr m;
  m.name = "power-law (Pareto tail 1.2, random columns)";
  m.rows = m.cols = rows;
  m.rowptr.resize(rows + 1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_real_distribution<float> v(-1.0f, 1.0f);
  std::uniform_int_distribution<int> c(0, rows - 1);
  for (int r = 0; r < rows; ++r) {
    m.rowptr[r] = int(m.col.size());
    const double len = 2.0 * std::pow(1.0 - u(rng), -1.0 / 1.2);
    const int n = int(std::min(20000.0, len));
    for (int k = 0; k < n; ++k) {
      m.col.push_back(c(rng));
      m.val.push_back(v(rng));
    }
  }
  m.rowptr[rows] = int(m.col.size());
  return m;
}

// ---------------------------------------------------------------- kernels
__global__ void spmv_thread_per_row(int rows, const int* __restrict__ rowptr, const int* __restrict__ col,
                                    const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int i = rowptr[r]; i < rowptr[r + 1]; ++i) sum += val[i] * x[col[i]];
  y[r] = sum;
}

template <int W>
__global__ void spmv_subwarp(int rows, const int* __restrict__ rowptr, const int* __restrict__ col,
                             const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y) {
  using tile = subwarp::tile<W>;
  const long long r = (long long)tile::global_index();
  if (r >= rows) return;  // whole tiles leave together
  const float sum = subwarp::for_each_index<W>(
      rowptr[r], rowptr[r + 1], [=](int i) { return val[i] * x[col[i]]; }, op::add{}, 0.0f);
  if (tile::rank() == 0) y[r] = sum;
}

template <class Mode>
__global__ void spmv_cte(int rows, const int* __restrict__ rowptr, const int* __restrict__ col,
                         const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  // Threads past the last row keep the warp full with an empty range.
  const int begin = r < rows ? rowptr[r] : 0;
  const int end = r < rows ? rowptr[r + 1] : 0;
  const float sum = cte::for_each_index<kBlock, Mode>(
      begin, end, [=](int i) { return val[i] * x[col[i]]; }, [](float a, float b) { return a + b; }, 0.0f);
  if (r < rows) y[r] = sum;
}

// ---------------------------------------------------------------- harness
struct device_csr {
  int rows = 0, cols = 0, nnz = 0;
  int *rowptr = nullptr, *col = nullptr;
  float *val = nullptr, *x = nullptr, *y = nullptr;
};

float median_ms(const std::function<void()>& launch, int repeats) {
  cudaEvent_t start, stop;
  NESTOR_CUDA_CHECK(cudaEventCreate(&start));
  NESTOR_CUDA_CHECK(cudaEventCreate(&stop));
  launch();  // warm-up (module load, caches)
  NESTOR_CUDA_CHECK(cudaGetLastError());
  NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> ms(repeats);
  for (int k = 0; k < repeats; ++k) {
    NESTOR_CUDA_CHECK(cudaEventRecord(start));
    launch();
    NESTOR_CUDA_CHECK(cudaEventRecord(stop));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(stop));
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&ms[k], start, stop));
  }
  NESTOR_CUDA_CHECK(cudaEventDestroy(start));
  NESTOR_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return ms[repeats / 2];
}

// Device-to-device copy bandwidth (read + write bytes / time), the roof the
// SpMV figures are compared to.
double memcpy_gbps(size_t bytes, int repeats) {
  void *a = nullptr, *b = nullptr;
  NESTOR_CUDA_CHECK(cudaMalloc(&a, bytes));
  NESTOR_CUDA_CHECK(cudaMalloc(&b, bytes));
  NESTOR_CUDA_CHECK(cudaMemset(a, 1, bytes));
  const float ms = median_ms([&] { NESTOR_CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, repeats);
  NESTOR_CUDA_CHECK(cudaFree(a));
  NESTOR_CUDA_CHECK(cudaFree(b));
  return 2.0 * double(bytes) / (ms * 1e6);
}

int run_matrix(const csr& m, int repeats, double copy_gbps, std::mt19937_64& rng) {
  std::vector<float> x(m.cols);
  std::uniform_real_distribution<float> v(-1.0f, 1.0f);
  for (auto& e : x) e = v(rng);
  // CPU reference and per-row error bound: float rounding of any summation
  // order stays below 1e-4 * sum |a_ij x_j| for these row lengths.
  std::vector<double> ref(m.rows), bound(m.rows);
  int max_len = 0;
  for (int r = 0; r < m.rows; ++r) {
    double s = 0, a = 0;
    for (int i = m.rowptr[r]; i < m.rowptr[r + 1]; ++i) {
      s += double(m.val[i]) * x[m.col[i]];
      a += std::fabs(double(m.val[i]) * x[m.col[i]]);
    }
    ref[r] = s;
    bound[r] = 1e-4 * a + 1e-6;
    max_len = std::max(max_len, m.rowptr[r + 1] - m.rowptr[r]);
  }

  device_csr d;
  d.rows = m.rows;
  d.cols = m.cols;
  d.nnz = int(m.val.size());
  NESTOR_CUDA_CHECK(cudaMalloc(&d.rowptr, (m.rows + 1) * sizeof(int)));
  NESTOR_CUDA_CHECK(cudaMalloc(&d.col, m.col.size() * sizeof(int)));
  NESTOR_CUDA_CHECK(cudaMalloc(&d.val, m.val.size() * sizeof(float)));
  NESTOR_CUDA_CHECK(cudaMalloc(&d.x, m.cols * sizeof(float)));
  NESTOR_CUDA_CHECK(cudaMalloc(&d.y, m.rows * sizeof(float)));
  NESTOR_CUDA_CHECK(cudaMemcpy(d.rowptr, m.rowptr.data(), (m.rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(d.col, m.col.data(), m.col.size() * sizeof(int), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(d.val, m.val.data(), m.val.size() * sizeof(float), cudaMemcpyHostToDevice));
  NESTOR_CUDA_CHECK(cudaMemcpy(d.x, x.data(), m.cols * sizeof(float), cudaMemcpyHostToDevice));

  const double bytes = double(d.nnz) * (sizeof(float) + sizeof(int)) + double(m.rows + 1) * sizeof(int) +
                       double(m.cols) * sizeof(float) + double(m.rows) * sizeof(float);
  std::printf("\n== %s: %d rows, %d non-zeros (%.1f per row, longest %d), %.1f MB compulsory traffic\n",
              m.name.c_str(), m.rows, d.nnz, double(d.nnz) / m.rows, max_len, bytes / 1e6);
  std::printf("%-22s %10s %10s %10s %10s\n", "variant", "median ms", "speedup", "GB/s", "of memcpy");

  int failures = 0;
  float baseline_ms = 0.0f;
  auto measure = [&](const char* name, const std::function<void()>& launch) {
    NESTOR_CUDA_CHECK(cudaMemset(d.y, 0xff, m.rows * sizeof(float)));  // NaN: stale results cannot pass
    launch();
    NESTOR_CUDA_CHECK(cudaGetLastError());
    NESTOR_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> y(m.rows);
    NESTOR_CUDA_CHECK(cudaMemcpy(y.data(), d.y, m.rows * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0, first_bad = -1;
    for (int r = 0; r < m.rows; ++r) {
      if (!(std::fabs(double(y[r]) - ref[r]) <= bound[r])) {
        if (first_bad < 0) first_bad = r;
        ++bad;
      }
    }
    if (bad) {
      std::printf("%-22s MISMATCH: %d rows wrong (first row %d: got %g, want %g); not timed\n", name, bad, first_bad,
                  double(y[first_bad]), ref[first_bad]);
      ++failures;
      return;
    }
    const float ms = median_ms(launch, repeats);
    if (baseline_ms == 0.0f) baseline_ms = ms;
    const double gbps = bytes / (double(ms) * 1e6);
    std::printf("%-22s %10.4f %9.2fx %10.1f %9.1f%%\n", name, ms, baseline_ms / ms, gbps, 100.0 * gbps / copy_gbps);
  };

  const unsigned row_blocks = unsigned((m.rows + kBlock - 1) / kBlock);
  measure("1 thread per row", [&] { spmv_thread_per_row<<<row_blocks, kBlock>>>(d.rows, d.rowptr, d.col, d.val, d.x, d.y); });
  auto sub = [&](auto width, const char* name) {
    constexpr int W = decltype(width)::value;
    const unsigned blocks = unsigned(subwarp::blocks_for_tasks<W>(m.rows, kBlock));
    measure(name, [&] { spmv_subwarp<W><<<blocks, kBlock>>>(d.rows, d.rowptr, d.col, d.val, d.x, d.y); });
  };
  sub(std::integral_constant<int, 2>{}, "sub-warp W=2");
  sub(std::integral_constant<int, 4>{}, "sub-warp W=4");
  sub(std::integral_constant<int, 8>{}, "sub-warp W=8");
  sub(std::integral_constant<int, 16>{}, "sub-warp W=16");
  sub(std::integral_constant<int, 32>{}, "sub-warp W=32");
  measure("CTE scanned", [&] { spmv_cte<cte::scanned><<<row_blocks, kBlock>>>(d.rows, d.rowptr, d.col, d.val, d.x, d.y); });
  measure("CTE disjoint", [&] { spmv_cte<cte::disjoint><<<row_blocks, kBlock>>>(d.rows, d.rowptr, d.col, d.val, d.x, d.y); });

#if NESTOR_HAVE_CUSPARSE
  {
    cusparseHandle_t h;
    CUSPARSE_CHECK(cusparseCreate(&h));
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t X, Y;
    CUSPARSE_CHECK(cusparseCreateCsr(&A, m.rows, m.cols, d.nnz, d.rowptr, d.col, d.val, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&X, m.cols, d.x, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&Y, m.rows, d.y, CUDA_R_32F));
    const float one = 1.0f, zero = 0.0f;
    size_t buffer_bytes = 0;
    CUSPARSE_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F,
                                           CUSPARSE_SPMV_CSR_ALG1, &buffer_bytes));
    void* buffer = nullptr;
    NESTOR_CUDA_CHECK(cudaMalloc(&buffer, std::max<size_t>(buffer_bytes, 1)));
    measure("cuSPARSE CSR ALG1", [&] {
      CUSPARSE_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F,
                                  CUSPARSE_SPMV_CSR_ALG1, buffer));
    });
    NESTOR_CUDA_CHECK(cudaFree(buffer));
    CUSPARSE_CHECK(cusparseDestroySpMat(A));
    CUSPARSE_CHECK(cusparseDestroyDnVec(X));
    CUSPARSE_CHECK(cusparseDestroyDnVec(Y));
    CUSPARSE_CHECK(cusparseDestroy(h));
  }
#else
  std::printf("%-22s skipped: built without cuSPARSE\n", "cuSPARSE");
#endif

  for (void* p : {(void*)d.rowptr, (void*)d.col, (void*)d.val, (void*)d.x, (void*)d.y}) NESTOR_CUDA_CHECK(cudaFree(p));
  return failures;
}

int main(int argc, char** argv) {
  int rows = 1 << 20, repeats = 21;
  unsigned long long seed = 12345;
  for (int k = 1; k < argc; ++k) {
    auto value = [&](const char* flag) -> const char* {
      if (k + 1 >= argc) {
        std::fprintf(stderr, "error: %s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++k];
    };
    if (!std::strcmp(argv[k], "--rows")) rows = std::atoi(value("--rows"));
    else if (!std::strcmp(argv[k], "--repeats")) repeats = std::atoi(value("--repeats"));
    else if (!std::strcmp(argv[k], "--seed")) seed = std::strtoull(value("--seed"), nullptr, 10);
    else {
      std::fprintf(stderr, "usage: %s [--rows N] [--repeats R] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  if (rows < 32 || rows > (1 << 24) || repeats < 1 || repeats > 1000) {
    std::fprintf(stderr, "error: need 32 <= --rows <= 16777216 and 1 <= --repeats <= 1000\n");
    return 2;
  }
  test::require_gpu_or_skip();
  cudaDeviceProp prop{};
  NESTOR_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("bench_loops_runtime: %s, %d rows, median of %d, seed %llu\n", prop.name, rows, repeats, seed);
  const double copy = memcpy_gbps(size_t(256) << 20, repeats);
  std::printf("device-to-device cudaMemcpy (256 MiB): %.1f GB/s (read + write)\n", copy);

  std::mt19937_64 rng(seed);
  int failures = 0;
  failures += run_matrix(make_regular(rows, rng), repeats, copy, rng);
  failures += run_matrix(make_power_law(rows, rng), repeats, copy, rng);
  if (failures) std::printf("\n%d variant(s) gave wrong results\n", failures);
  return failures ? 1 : 0;
}
