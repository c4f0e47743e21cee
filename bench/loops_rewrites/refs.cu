// Library references for bench/loops_rewrites: cuBLAS gemv for TMV and MV,
// cuSPARSE SpMV for CSR, on the same inputs (same generators and seeds) as
// the fixtures in tests/fixtures/loops. Each result is checked against a CPU
// reference before its time is printed.
//   bench_loops_refs --op tmv --w W --h H --reps R
//   bench_loops_refs --op mv --n N --m M --reps R
//   bench_loops_refs --op spmv --graph powerlaw|regular --rows R [--avg A] --reps R
#include "loops_harness.cuh"

#include <cublas_v2.h>
#include <cusparse.h>

#define CHECK_CUBLAS(x) do { if ((x) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "cuBLAS error at %d\n", __LINE__); return 1; } } while (0)
#define CHECK_CUSPARSE(x) do { if ((x) != CUSPARSE_STATUS_SUCCESS) { std::fprintf(stderr, "cuSPARSE error at %d\n", __LINE__); return 1; } } while (0)

static bool close_to(const std::vector<float> &got, const std::vector<double> &want) {
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > 1e-3 * std::fmax(1.0, std::fabs(want[i]))) {
      std::fprintf(stderr, "reference mismatch at %zu: %g vs %g\n", i, got[i], want[i]);
      return false;
    }
  return true;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const std::string op = args.str("op", "tmv");
  cublasHandle_t blas;
  CHECK_CUBLAS(cublasCreate(&blas));
  const float one = 1.f, zero = 0.f;
  if (op == "tmv" || op == "mv") {
    // tmv: c[x] = sum_i a[i*w + x] b[i]  (column-major: A is w x h, lda = w, no transpose)
    // mv:  out[r] = sum_j a[r*m + j] b[j] (column-major: A^T of m x n, transpose)
    const bool tmv = op == "tmv";
    const int w = int(tmv ? args.get("w", 1024) : args.get("m", 2048));
    const int h = int(tmv ? args.get("h", 2048) : args.get("n", 2048));
    auto ha = loops::random_floats(size_t(w) * h, tmv ? 1 : 12);
    auto hb = loops::random_floats(size_t(tmv ? h : w), tmv ? 2 : 13);
    float *a = loops::to_device(ha), *b = loops::to_device(hb);
    const int outn = tmv ? w : h;
    float *c = loops::device_zeros<float>(size_t(outn));
    auto run = [&] {
      if (tmv) cublasSgemv(blas, CUBLAS_OP_N, w, h, &one, a, w, b, 1, &zero, c, 1);
      else cublasSgemv(blas, CUBLAS_OP_T, w, h, &one, a, w, b, 1, &zero, c, 1);
    };
    run();
    std::vector<float> got = loops::from_device(c, size_t(outn));
    std::vector<double> want(size_t(outn), 0.0);
    for (int r = 0; r < h; ++r)
      for (int x = 0; x < w; ++x) {
        if (tmv) want[size_t(x)] += double(ha[size_t(r) * w + x]) * hb[size_t(r)];
        else want[size_t(r)] += double(ha[size_t(r) * w + x]) * hb[size_t(x)];
      }
    if (!close_to(got, want)) return 1;
    loops::timed(args, 4.0 * (double(w) * h + w + h), run);
    return 0;
  }
  if (op == "spmv") {
    const int rows = int(args.get("rows", 20000)), avg = int(args.get("avg", 16));
    const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
    loops::Csr m = loops::make_csr(rows, rows, avg, powerlaw, unsigned(args.get("seed", 7)));
    auto hx = loops::random_floats(size_t(rows), 8);
    int *rp = loops::to_device(m.rowptr), *ci = loops::to_device(m.col);
    float *v = loops::to_device(m.val), *x = loops::to_device(hx), *y = loops::device_zeros<float>(size_t(rows));
    cusparseHandle_t sp;
    CHECK_CUSPARSE(cusparseCreate(&sp));
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t X, Y;
    CHECK_CUSPARSE(cusparseCreateCsr(&A, rows, rows, int64_t(m.val.size()), rp, ci, v, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnVec(&X, rows, x, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnVec(&Y, rows, y, CUDA_R_32F));
    size_t ws = 0;
    CHECK_CUSPARSE(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F,
                                           CUSPARSE_SPMV_ALG_DEFAULT, &ws));
    void *buf = nullptr;
    NESTOR_CUDA_CHECK(cudaMalloc(&buf, ws ? ws : 1));
    auto run = [&] {
      cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf);
    };
    run();
    std::vector<float> got = loops::from_device(y, size_t(rows));
    std::vector<double> want(size_t(rows), 0.0);
    for (int r = 0; r < rows; ++r)
      for (int j = m.rowptr[size_t(r)]; j < m.rowptr[size_t(r) + 1]; ++j)
        want[size_t(r)] += double(m.val[size_t(j)]) * hx[size_t(m.col[size_t(j)])];
    if (!close_to(got, want)) return 1;
    loops::timed(args, 12.0 * m.val.size() + 12.0 * rows, run);
    return 0;
  }
  std::fprintf(stderr, "unknown --op '%s' (tmv, mv, spmv)\n", op.c_str());
  return 2;
}
