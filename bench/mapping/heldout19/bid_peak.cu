// Held-out case (bench/mapping/heldout19.tsv): every buyer's largest order
// value in one trading session (the exposure check of a wholesale exchange's
// clearing step, one buyer per thread): row i of a CSR matrix lists buyer
// i's orders, a contiguous FLOAT array gives each order's quantity, and the
// thread keeps a FLOAT MAX, from 0, of the quantity times the lot's price (a
// FLOAT table gathered by the column). A FLOAT MAX of a contiguous float
// times a gathered float over a CSR row; power-law rows. Written for issue
// 22's nineteenth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef BP_BLOCK
#define BP_BLOCK 128
#endif

__global__ void largest_order_value(const int *__restrict__ row, const int *__restrict__ lot,
                                    const float *__restrict__ qty, const float *__restrict__ price,
                                    float *__restrict__ peak, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float m = 0.0f;
  for (int k = row[i]; k < row[i + 1]; ++k) m = fmaxf(m, qty[k] * price[lot[k]]);
  peak[i] = m;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 163840)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "bid_peak: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1901)));
  const size_t nnz = a.col.size();
  // Quantities 1 to 101 from the generated values; lot prices 0.25 to 1024
  // from 32-bit hashes.
  std::vector<float> qty(nnz);
  for (size_t k = 0; k < nnz; ++k) qty[k] = 1.0f + (a.val[k] + 1.0f) * 50.0f;
  std::vector<float> price(static_cast<size_t>(n));
  for (int s = 0; s < n; ++s) {
    unsigned h = unsigned(s) * 0x9E3779B9u + 1902u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    price[size_t(s)] = 0.25f * float(1u + (h >> 8) % 4096u);
  }
  int *drow = loops::to_device(a.rowptr), *dlot = loops::to_device(a.col);
  float *dqty = loops::to_device(qty), *dprice = loops::to_device(price);
  float *dpeak = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 12.0 * nnz + 8.0 * n, [&] {
    largest_order_value<<<(n + BP_BLOCK - 1) / BP_BLOCK, BP_BLOCK>>>(drow, dlot, dqty, dprice, dpeak, n);
  });
  std::vector<float> got = loops::from_device(dpeak, size_t(n));
  // A maximum of float products (one rounding each): exact.
  size_t bad = 0;
  double total = 0.0;
  for (int i = 0; i < n; ++i) {
    float m = 0.0f;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      m = std::max(m, qty[size_t(k)] * price[size_t(a.col[size_t(k)])]);
    total += m;
    if (got[size_t(i)] != m) ++bad;
  }
  std::printf("bid_peak: %d buyers, %zu orders, %.1f in largest orders%s\n", n, nnz, total,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
