// Tuning sweep for the merge-path runtime (nestor/merge_path.cuh) on the
// bench/spmv matrices, in one process per matrix (the matrix is generated
// once): tile shapes (threads per block, diagonals per thread, resident
// blocks asked of the compiler) and load paths of f(j), each timed with its
// row pass as the rewrite launches them, and the merge kernel alone, against
// cusparseSpMV on the same matrix and vectors. Every configuration's result
// is checked against the float64 reference (spmv_reference.h) and for
// identical bits after the timed launches. Not a test: it prints figures.
//   bench_spmv_tune --graph powerlaw|regular|longrows --rows R [--avg A] [--reps N]
#include "spmv_reference.h"

#include <nestor/merge_path.cuh>

#include <algorithm>
#include <cusparse.h>
#include <functional>
#include <string>

#define CHECK_CUSPARSE(x) do { if ((x) != CUSPARSE_STATUS_SUCCESS) { std::fprintf(stderr, "cuSPARSE error at %d\n", __LINE__); std::exit(1); } } while (0)

namespace {

// Load paths of f(j) = val[j] * x[col[j]] (what the generator would emit).
enum Hint { kPlain = 0, kLdg = 1, kRestrict = 2, kStream = 3 };

template <int B, int I, int MB, int H>
__global__ void __launch_bounds__(B, MB) merge_k(const int *rowptr, const int *col, const float *val, const float *x, float *y,
                                                 int rows, nestor::mp::state s) {
  if constexpr (H == kLdg)
    nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return __ldg(&val[j]) * __ldg(&x[__ldg(&col[j])]); },
                                        nestor::op::add{});
  else if constexpr (H == kStream)
    nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return __ldcs(&val[j]) * __ldg(&x[__ldcs(&col[j])]); },
                                        nestor::op::add{});
  else
    nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{});
}

template <int B, int I, int MB>
__global__ void __launch_bounds__(B, MB) merge_restrict_k(const int *__restrict__ rowptr, const int *__restrict__ col,
                                                          const float *__restrict__ val, const float *__restrict__ x,
                                                          float *__restrict__ y, int rows, nestor::mp::state s) {
  nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{});
}

// The fused form the rewrite generates (the epilogue `y[row] = 0 + v` runs in
// the merge kernel; no row pass when the launch has one thread per row).
template <int B, int I, int MB, int H>
__global__ void __launch_bounds__(B, MB) merge_fused_k(const int *rowptr, const int *col, const float *val, const float *x,
                                                       float *y, int rows, nestor::mp::state s) {
  auto epi = [&](long long q, float v) {
    float sum = 0.0f;
    sum = nestor::op::add{}(sum, v);
    y[q] = sum;
  };
  if constexpr (H == kLdg)
    nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return __ldg(&val[j]) * __ldg(&x[__ldg(&col[j])]); },
                                        nestor::op::add{}, epi);
  else
    nestor::mp::merge_rows<float, B, I>(s, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{}, epi);
}

// Speed of light for the loads of f: every iteration once, grid-stride, no merge.
__global__ void __launch_bounds__(256) loads_only_k(const int *__restrict__ rowptr, const int *__restrict__ col,
                                                    const float *__restrict__ val, const float *__restrict__ x, float *y, int rows) {
  const int nnz = rowptr[rows];
  float acc = 0;
#pragma unroll 8
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < nnz; j += gridDim.x * blockDim.x) acc += val[j] * x[col[j]];
  if (acc == 1234.5f) y[0] = acc;
}

// The row pass, as the rewrite leaves the user's kernel.
__global__ void row_k(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows,
                      nestor::mp::state nestor_mp) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  if (nestor_mp.ready())
    sum = nestor::op::add{}(sum, nestor_mp.row_result<float>(rowptr[row], rowptr[row + 1], row, nestor::op::add{}, rowptr[0]));
  else
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j) sum += val[j] * x[col[j]];
  y[row] = sum;
}

struct Data {
  int *rp, *ci;
  float *v, *x, *y;
  int rows;
};

struct Config {
  std::string name;
  std::function<void(const Data &, bool withRows)> run;
};

template <int B, int I, int MB, int H> Config make(const char *name) {
  Config c;
  c.name = name;
  c.run = [](const Data &d, bool withRows) {
    using K = void (*)(const int *, const int *, const float *, const float *, float *, int, nestor::mp::state);
    K k;
    if constexpr (H == kRestrict) k = merge_restrict_k<B, I, MB>;
    else k = merge_k<B, I, MB, H>;
    nestor::mp::launch<float, B>(
        d.rows, k, [&](nestor::mp::state s, int grid) { k<<<grid, B>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s); },
        [&](nestor::mp::state s) {
          if (withRows) row_k<<<(d.rows + 31) / 32, 32>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s);
        });
  };
  return c;
}

/// The fused launch (one kernel); "merge alone" is the same launch.
/// TwoD: the original launched on a grid of height 2 (every row twice, the
/// same value): not one thread per row, so the runtime falls back to the
/// merge kernel (epilogue not run) + the row pass.
template <int B, int I, int MB, int H, bool TwoD = false> Config make_fused(const char *name) {
  Config c;
  c.name = name;
  c.run = [](const Data &d, bool) {
    auto k = merge_fused_k<B, I, MB, H>;
    nestor::mp::launch<float, B>(
        d.rows, dim3((d.rows + 31) / 32, TwoD ? 2 : 1), dim3(32), k,
        [&](nestor::mp::state s, int grid) { k<<<grid, B>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s); },
        [&](nestor::mp::state s, dim3 g, dim3 b) { row_k<<<g, b>>>(d.rp, d.ci, d.v, d.x, d.y, d.rows, s); });
  };
  return c;
}

cudaEvent_t e0, e1;
double median_ms(int reps, const std::function<void()> &f) {
  std::vector<float> ms;
  for (int r = 0; r < reps; ++r) {
    NESTOR_CUDA_CHECK(cudaEventRecord(e0));
    f();
    NESTOR_CUDA_CHECK(cudaEventRecord(e1));
    NESTOR_CUDA_CHECK(cudaEventSynchronize(e1));
    float t = 0;
    NESTOR_CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  NESTOR_CUDA_CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 100000)), avg = int(args.get("avg", 16)), reps = int(args.get("reps", 20));
  const std::string kind = args.str("graph", "powerlaw");
  const loops::Csr a = loops::make_csr(rows, rows, avg, kind == "powerlaw", 7);
  const std::vector<float> hx = loops::random_floats(size_t(rows), 8);
  const spmv::Reference ref = spmv::reference(a, hx);
  Data d{loops::to_device(a.rowptr), loops::to_device(a.col), loops::to_device(a.val), loops::to_device(hx),
         loops::device_zeros<float>(size_t(rows)), rows};
  NESTOR_CUDA_CHECK(cudaEventCreate(&e0));
  NESTOR_CUDA_CHECK(cudaEventCreate(&e1));
  const double bytes = 12.0 * a.val.size() + 12.0 * rows;
  // Copy bandwidth (read + write), the bench's ceiling.
  const size_t half = std::max(size_t(bytes / 2), size_t(16) << 20);
  void *src, *dst;
  NESTOR_CUDA_CHECK(cudaMalloc(&src, half));
  NESTOR_CUDA_CHECK(cudaMalloc(&dst, half));
  NESTOR_CUDA_CHECK(cudaMemset(src, 1, half));
  const double copy_ms = median_ms(reps, [&] { NESTOR_CUDA_CHECK(cudaMemcpy(dst, src, half, cudaMemcpyDeviceToDevice)); });
  const double copy_gbs = 2.0 * half / (copy_ms * 1e6);
  NESTOR_CUDA_CHECK(cudaFree(src));
  NESTOR_CUDA_CHECK(cudaFree(dst));
  // cuSPARSE.
  cusparseHandle_t sp;
  CHECK_CUSPARSE(cusparseCreate(&sp));
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t X, Y;
  CHECK_CUSPARSE(cusparseCreateCsr(&A, rows, rows, int64_t(a.val.size()), d.rp, d.ci, d.v, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CHECK_CUSPARSE(cusparseCreateDnVec(&X, rows, d.x, CUDA_R_32F));
  CHECK_CUSPARSE(cusparseCreateDnVec(&Y, rows, d.y, CUDA_R_32F));
  const float one = 1.f, zero = 0.f;
  size_t ws = 0;
  CHECK_CUSPARSE(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F,
                                         CUSPARSE_SPMV_ALG_DEFAULT, &ws));
  void *buf;
  NESTOR_CUDA_CHECK(cudaMalloc(&buf, ws ? ws : 1));
  auto cusp = [&] {
    cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf);
  };
  cusp();
  spmv::Verdict cv = spmv::check(ref, loops::from_device(d.y, size_t(rows)), "cusparse");
  const double cusp_ms = median_ms(reps, cusp);
  std::printf("matrix %s rows=%d nnz=%zu copy_gbs=%.0f\n", kind.c_str(), rows, a.val.size(), copy_gbs);
  std::printf("%-28s %9s %9s %7s %7s %8s %s\n", "config", "total_ms", "merge_ms", "x_cusp", "of_copy", "worst", "bits");
  std::printf("%-28s %9.4f %9s %7.2f %7.3f %8.3f %s\n", "cusparseSpMV", cusp_ms, "-", 1.0, bytes / (cusp_ms * 1e6) / copy_gbs,
              cv.worst, cv.bad ? "WRONG" : "-");
  // The runtime's default shape first, then the earlier default and the
  // shapes and load paths of the sweep in docs/rewrites-merge-path.md.
  // (Session 8: the two-pass default against the fused form at several
  // shapes; the earlier sweep's configurations are in git history.)
  const Config configs[] = {
      make<nestor::mp::kBlock, nestor::mp::kItems, nestor::mp::kMinBlocks, kPlain>("default 2-pass"),
      make_fused<nestor::mp::kBlock, nestor::mp::kItems, nestor::mp::kMinBlocks, kPlain>("fused default"),
      make_fused<nestor::mp::kBlock, nestor::mp::kItems, nestor::mp::kMinBlocks, kLdg>("fused ldg"),
      make_fused<256, 8, 4, kPlain>("fused b256 i8 mb4"),
      make_fused<128, 8, 8, kPlain>("fused b128 i8 mb8"),
      make_fused<128, 16, 4, kPlain>("fused b128 i16 mb4"),
      make_fused<64, 12, 12, kPlain>("fused b64 i12 mb12"),
      make_fused<nestor::mp::kBlock, nestor::mp::kItems, nestor::mp::kMinBlocks, kPlain, true>("fused, 2-D grid: 2-pass"),
  };
  {
    int sms = 0;
    NESTOR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int per : {4, 8}) {
      const double t = median_ms(reps, [&] { loads_only_k<<<sms * per, 256>>>(d.rp, d.ci, d.v, d.x, d.y, rows); });
      std::printf("%-28s %9.4f %9s %7.2f %7.3f (f(j) loads only, no result)\n", per == 4 ? "loads only x4" : "loads only x8", t, "-",
                  cusp_ms / t, bytes / (t * 1e6) / copy_gbs);
    }
  }
  std::vector<float> first; // the default's result: the fused form must give the same bits
  for (const Config &c : configs) {
    NESTOR_CUDA_CHECK(cudaMemset(d.y, 0xff, size_t(rows) * sizeof(float))); // NaN: every row must be written
    c.run(d, true);
    const std::vector<float> y1 = loops::from_device(d.y, size_t(rows));
    if (first.empty()) first = y1;
    const bool asDefault = std::memcmp(first.data(), y1.data(), y1.size() * sizeof(float)) == 0;
    spmv::Verdict v = spmv::check(ref, y1, c.name.c_str());
    const double total = median_ms(reps, [&] { c.run(d, true); });
    const double merge = median_ms(reps, [&] { c.run(d, false); });
    NESTOR_CUDA_CHECK(cudaMemset(d.y, 0xff, size_t(rows) * sizeof(float)));
    c.run(d, true);
    const std::vector<float> y2 = loops::from_device(d.y, size_t(rows));
    const bool same = std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)) == 0;
    std::printf("%-28s %9.4f %9.4f %7.2f %7.3f %8.3f %s%s%s\n", c.name.c_str(), total, merge, cusp_ms / total,
                bytes / (total * 1e6) / copy_gbs, v.worst, same ? "bitwise" : "DIFFER", v.bad ? " WRONG" : "",
                asDefault ? " =2pass" : " (other bits than 2-pass)");
  }
  return 0;
}
