// Held-out case (bench/mapping/heldout3.tsv): one Jacobi sweep for a sparse
// diagonally dominant system stored in CSR with its diagonal inside the rows
// (as a matrix assembled by a finite-element or graph-Laplacian code comes):
// one thread per row sums the off-diagonal products over its CSR range,
// skipping the diagonal entry, and divides by the diagonal. An irregular
// reduction with a guard, on power-law and near-regular rows.
// Written for issue 22's third held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef JAC_BLOCK
#define JAC_BLOCK 128
#endif

__global__ void jacobi_sweep(int n, const int *rowptr, const int *col, const float *val, const float *diag,
                             const float *b, const float *x, float *x_new) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sigma = 0.0f;
    for (int e = rowptr[i]; e < rowptr[i + 1]; e++) {
      int j = col[e];
      if (j != i) sigma += val[e] * x[j];
    }
    x_new[i] = (b[i] - sigma) / diag[i];
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 262144)), avg = int(args.get("avg", 8));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 321)));
  // The diagonal dominates its row: 1 + the sum of the row's magnitudes.
  std::vector<float> diag(size_t(n), 1.0f);
  for (int i = 0; i < n; ++i)
    for (int e = a.rowptr[size_t(i)]; e < a.rowptr[size_t(i) + 1]; ++e)
      if (a.col[size_t(e)] != i) diag[size_t(i)] += std::fabs(a.val[size_t(e)]);
  std::vector<float> b = loops::random_floats(size_t(n), 322), x = loops::random_floats(size_t(n), 323);
  int *rowptr = loops::to_device(a.rowptr), *col = loops::to_device(a.col);
  float *val = loops::to_device(a.val), *ddiag = loops::to_device(diag), *db = loops::to_device(b);
  float *dx = loops::to_device(x), *x_new = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 12.0 * a.col.size() + 16.0 * n, [&] {
    jacobi_sweep<<<(n + JAC_BLOCK - 1) / JAC_BLOCK, JAC_BLOCK>>>(n, rowptr, col, val, ddiag, db, dx, x_new);
  });
  std::vector<float> got = loops::from_device(x_new, size_t(n));
  // |sigma| <= diag - 1 and |b| <= 1, so every result lies in [-1, 1] and
  // 1e-4 absolute is far above any order of summation's rounding.
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    double sigma = 0;
    for (int e = a.rowptr[size_t(i)]; e < a.rowptr[size_t(i) + 1]; ++e)
      if (a.col[size_t(e)] != i) sigma += double(a.val[size_t(e)]) * x[size_t(a.col[size_t(e)])];
    if (std::fabs(got[size_t(i)] - (b[size_t(i)] - sigma) / diag[size_t(i)]) > 1e-4) ++bad;
  }
  std::printf("jacobi_csr: %d rows, %zu entries%s\n", n, a.col.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
