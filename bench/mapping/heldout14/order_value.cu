// Held-out case (bench/mapping/heldout14.tsv): the value of every open order
// in a warehouse (the nightly valuation pass of an inventory system, one
// order per thread): row i of a CSR matrix lists order i's line items, a
// contiguous array of 16-bit quantities gives each line's count, and the
// thread sums quantity x the item's DOUBLE unit price, gathered from the
// catalogue. A DOUBLE sum over a row of contiguous UNSIGNED SHORT quantities
// times gathered double prices; power-law and regular rows. Written for issue
// 22's fourteenth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef OV_BLOCK
#define OV_BLOCK 256
#endif

__global__ void order_total_value(const int *__restrict__ row, const int *__restrict__ item,
                                  const unsigned short *__restrict__ qty, const double *__restrict__ price,
                                  double *__restrict__ total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  for (int k = row[i]; k < row[i + 1]; ++k) s += double(qty[k]) * price[item[k]];
  total[i] = s;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "order_value: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1411)));
  const size_t nnz = a.col.size();
  // Quantities 1 to 64, prices 0.5 to 500 (cents kept as doubles).
  std::vector<unsigned short> qty(nnz);
  for (size_t k = 0; k < nnz; ++k) qty[k] = (unsigned short)(1 + int((a.val[k] + 1.0f) * 31.5f));
  std::vector<float> pf = loops::random_floats(size_t(n), 1412u, 0.5f, 500.0f);
  std::vector<double> price(pf.begin(), pf.end());
  int *drow = loops::to_device(a.rowptr), *ditem = loops::to_device(a.col);
  unsigned short *dqty = loops::to_device(qty);
  double *dprice = loops::to_device(price);
  double *dtot = loops::device_zeros<double>(size_t(n));
  loops::timed(args, 14.0 * nnz + 16.0 * n, [&] {
    order_total_value<<<(n + OV_BLOCK - 1) / OV_BLOCK, OV_BLOCK>>>(drow, ditem, dqty, dprice, dtot, n);
  });
  std::vector<double> got = loops::from_device(dtot, size_t(n));
  // Non-negative terms: any order of double sums stays within 1e-9 relative.
  size_t bad = 0;
  std::vector<float> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      s += double(qty[size_t(k)]) * price[size_t(a.col[size_t(k)])];
    if (std::fabs(got[size_t(i)] - s) > 1e-9 * std::max(1.0, s)) ++bad;
    out[size_t(i)] = float(got[size_t(i)]);
  }
  std::printf("order_value: %d orders, %zu lines%s\n", n, nnz, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(out);
  return bad ? 1 : 0;
}
