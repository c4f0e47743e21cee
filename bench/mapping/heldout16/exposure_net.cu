// Held-out case (bench/mapping/heldout16.tsv): every counterparty's margined
// exposure (the netting-set sum a clearing house or a bank's credit-risk
// engine recomputes after each market move, one counterparty per thread):
// row i of a CSR matrix lists counterparty i's open trades, a contiguous
// double array gives each trade's notional, and the thread sums notional
// times the gathered (1 - haircut) of the trade's collateral class, a float
// table indexed by the column, as a DOUBLE. A DOUBLE SUM of a contiguous
// double times a gathered float over a CSR row; power-law and regular rows.
// Written for issue 22's sixteenth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef XN_BLOCK
#define XN_BLOCK 128
#endif

__global__ void counterparty_exposure(const int *__restrict__ row, const int *__restrict__ cls,
                                      const double *__restrict__ notional, const float *__restrict__ keep,
                                      float *__restrict__ exposure, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = 0.0;
  for (int k = row[i]; k < row[i + 1]; ++k) x += notional[k] * double(keep[cls[k]]);
  exposure[i] = float(x);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "exposure_net: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1601)));
  const size_t nnz = a.col.size();
  // Notionals -5M to 5M from the generated values (negative: the other
  // side of the trade); kept shares (1 - haircut) 0.5 to 1 per class.
  std::vector<double> notional(nnz);
  for (size_t k = 0; k < nnz; ++k) notional[k] = double(a.val[k]) * 5.0e6;
  std::vector<float> keep = loops::random_floats(size_t(n), 1602u, 0.5f, 1.0f);
  int *drow = loops::to_device(a.rowptr), *dcls = loops::to_device(a.col);
  double *dnot = loops::to_device(notional);
  float *dkeep = loops::to_device(keep);
  float *dexp = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 16.0 * nnz + 8.0 * n, [&] {
    counterparty_exposure<<<(n + XN_BLOCK - 1) / XN_BLOCK, XN_BLOCK>>>(drow, dcls, dnot, dkeep, dexp, n);
  });
  std::vector<float> got = loops::from_device(dexp, size_t(n));
  // Double sums rounded to float: compared with a relative tolerance.
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    double x = 0.0, mag = 0.0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k) {
      const double t = notional[size_t(k)] * double(keep[size_t(a.col[size_t(k)])]);
      x += t;
      mag += std::fabs(t);
    }
    if (std::fabs(double(got[size_t(i)]) - x) > 1e-5 * (mag + 1.0)) ++bad;
  }
  std::printf("exposure_net: %d counterparties, %zu trades%s\n", n, nnz,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
