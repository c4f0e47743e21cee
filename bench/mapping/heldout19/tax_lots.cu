// Held-out case (bench/mapping/heldout19.tsv): every brokerage account's
// cost basis (what a broker's year-end tax statement totals, one account per
// thread): account a's NLOT UNSIGNED share counts, one per tax lot, are
// stored together (row-major, a x NLOT + l), the lots' purchase prices are
// NLOT DOUBLES every thread reads in the same order (a model portfolio's
// lots), and the thread SUMS, in double, the shares times the price over a
// MACRO-BOUNDED loop (l < NLOT); 24 and 80 lots. A DOUBLE SUM of a
// row-major unsigned times a broadcast double. Written for issue 22's
// nineteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef TL_BLOCK
#define TL_BLOCK 128
#endif

#ifndef NLOT
#define NLOT 24
#endif

__global__ void lot_cost_basis(const unsigned *__restrict__ shares, const double *__restrict__ price,
                               float *__restrict__ basis, int nacct) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= nacct) return;
  double s = 0.0;
  for (int l = 0; l < NLOT; ++l) s += double(shares[size_t(a) * NLOT + l]) * price[l];
  basis[a] = float(s);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nacct = int(args.get("accounts", 1 << 21));
  if (nacct < 1) {
    std::fprintf(stderr, "tax_lots: --accounts must be at least 1\n");
    return 2;
  }
  // Prices 5 to 505 from mt19937; share counts from xorshift64*, two a
  // draw: 0 to 1023, and 0 when the draw's low 2 bits are 0 (a sold lot).
  std::vector<float> pf = loops::random_floats(NLOT, 1951u, 5.0f, 505.0f);
  std::vector<double> price(pf.begin(), pf.end());
  const size_t ns = size_t(nacct) * NLOT;
  std::vector<unsigned> shares(ns + 2);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1952u;
  for (size_t k = 0; k < ns; k += 2) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    shares[k] = (h & 3u) ? unsigned(h >> 22) & 1023u : 0u;
    shares[k + 1] = unsigned(h >> 44) & 1023u;
  }
  unsigned *dshares = loops::to_device(shares);
  double *dprice = loops::to_device(price);
  float *dbasis = loops::device_zeros<float>(size_t(nacct));
  loops::timed(args, 4.0 * double(ns) + 4.0 * nacct, [&] {
    lot_cost_basis<<<(nacct + TL_BLOCK - 1) / TL_BLOCK, TL_BLOCK>>>(dshares, dprice, dbasis, nacct);
  });
  std::vector<float> got = loops::from_device(dbasis, size_t(nacct));
  // Double sums of non-negative terms rounded to float: a relative
  // tolerance; the serial reference checks every 4th account.
  size_t bad = 0;
  double total = 0.0;
  for (int a = 0; a < nacct; a += 4) {
    double s = 0.0;
    for (int l = 0; l < NLOT; ++l) s += double(shares[size_t(a) * NLOT + size_t(l)]) * price[size_t(l)];
    total += s;
    if (std::fabs(double(got[size_t(a)]) - s) > 1e-5 * (s + 1.0)) ++bad;
  }
  std::printf("tax_lots: %d accounts of %d lots, %.3e basis in the checked%s\n", nacct, NLOT, total,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
