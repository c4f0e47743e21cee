// CSR SpMV (y = A x), one thread per row: the CTE paper's 1D baseline. The
// inner loop's trip count is the row length, which on a power-law matrix is
// irregular: most rows are short, a few are very long, and the warp that holds
// a long row keeps its SM busy while the others idle. That imbalance is what
// sub-warp decomposition, CTE and CUDA-NP spread over more threads. Input
// `nestor profile` plans for (examples/profile/spmv; the plan is generated into build/plans/spmv).
//
// usage: spmv [ROWS [SEED [REPS [OUT]]]]
// Builds a ROWS x ROWS power-law CSR matrix and a vector x from SEED (its own
// PRNG, so the matrix is the same on every machine), launches the kernel REPS
// times and writes y to OUT as a raw little-endian float32 array (ROWS values).
//
// Every value of A is a multiple of 1/16 and every value of x a multiple of
// 1/8, so each product is a multiple of 1/128 below 1 and every partial sum of
// a row (at most kMaxRowLength terms) is exact in float: any summation order
// (the rewrites re-associate the sum) gives bit-identical results.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define SPMV_BLOCK 128

#define CUDA_CHECK(expr)                                                                   \
  do {                                                                                     \
    cudaError_t err_ = (expr);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

__global__ void spmv(const int *rowPtr, const int *col, const float *val, const float *x, float *y, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float sum = 0.0f;
  for (int j = rowPtr[row]; j < rowPtr[row + 1]; ++j)
    sum += val[j] * x[col[j]];
  y[row] = sum;
}

namespace {

// Longest row: 65536 * (15/16) * (7/8) * 128 < 2^24, so row sums stay exact.
constexpr int kMaxRowLength = 1 << 16;

// splitmix64: small, fast and the same everywhere.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return double((next() >> 11) + 1) * 0x1.0p-53; } // (0, 1]
};

// Row lengths: 1 row in 16 empty, the others Pareto(xmin = 2, alpha = 1.2)
// capped at kMaxRowLength (and the column count): mean about 10, a handful of
// rows above 10^4, the longest at the cap.
int rowLength(Rng &rng, int cols) {
  if (rng.next() % 16 == 0) return 0;
  double len = 2.0 * std::pow(rng.uniform(), -1.0 / 1.2);
  int cap = cols < kMaxRowLength ? cols : kMaxRowLength;
  return len >= cap ? cap : int(len);
}

} // namespace

int main(int argc, char **argv) {
  const long rowsArg = argc > 1 ? std::atol(argv[1]) : 262144;
  const unsigned long long seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
  const char *out = argc > 4 ? argv[4] : "y.f32";
  if (rowsArg <= 0 || rowsArg > (1 << 24) || reps <= 0) {
    std::fprintf(stderr, "usage: spmv [ROWS [SEED [REPS [OUT]]]] with 0 < ROWS <= %d and REPS > 0\n", 1 << 24);
    return 2;
  }
  const int n = int(rowsArg);

  Rng rng{seed};
  std::vector<int> hRowPtr(static_cast<size_t>(n) + 1);
  hRowPtr[0] = 0;
  int longest = 0;
  for (int r = 0; r < n; ++r) {
    int len = rowLength(rng, n);
    if (len > longest) longest = len;
    if (hRowPtr[r] > INT32_MAX - len) {
      std::fprintf(stderr, "spmv: too many nonzeros for int indices\n");
      return 2;
    }
    hRowPtr[r + 1] = hRowPtr[r] + len;
  }
  const size_t nnz = size_t(hRowPtr[n]);
  std::vector<int> hCol(nnz);
  std::vector<float> hVal(nnz), hX(static_cast<size_t>(n));
  for (size_t j = 0; j < nnz; ++j) {
    uint64_t h = rng.next();
    hCol[j] = int((h >> 32) % uint64_t(n));
    hVal[j] = float(1 + (h & 0xffff) % 15) / 16.0f;
  }
  for (int i = 0; i < n; ++i) hX[size_t(i)] = float(1 + rng.next() % 7) / 8.0f;
  std::printf("spmv: %d rows, %zu nonzeros, longest row %d, %d launches of %d-thread blocks\n", n, nnz, longest,
              reps, SPMV_BLOCK);

  int *rowPtr, *col;
  float *val, *x, *y;
  CUDA_CHECK(cudaMalloc(&rowPtr, hRowPtr.size() * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&col, (nnz ? nnz : 1) * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&val, (nnz ? nnz : 1) * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&x, hX.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&y, size_t(n) * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(rowPtr, hRowPtr.data(), hRowPtr.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(col, hCol.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(val, hVal.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(x, hX.data(), hX.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(y, 0xff, size_t(n) * sizeof(float))); // NaN: a row left unwritten shows
  for (int r = 0; r < reps; ++r) {
    spmv<<<(n + SPMV_BLOCK - 1) / SPMV_BLOCK, SPMV_BLOCK>>>(rowPtr, col, val, x, y, n);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> hY(static_cast<size_t>(n));
  CUDA_CHECK(cudaMemcpy(hY.data(), y, hY.size() * sizeof(float), cudaMemcpyDeviceToHost));

  FILE *f = std::fopen(out, "wb");
  if (!f) {
    std::fprintf(stderr, "spmv: cannot write '%s'\n", out);
    return 2;
  }
  // Raw float32 in the host's byte order: little-endian on x86-64 and aarch64.
  bool ok = std::fwrite(hY.data(), sizeof(float), hY.size(), f) == hY.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "spmv: cannot write '%s'\n", out);
    return 2;
  }
  CUDA_CHECK(cudaFree(rowPtr));
  CUDA_CHECK(cudaFree(col));
  CUDA_CHECK(cudaFree(val));
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  return 0;
}
