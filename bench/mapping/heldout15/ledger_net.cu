// Held-out case (bench/mapping/heldout15.tsv): the net position of every
// account of a multi-currency ledger in the base currency, in hundredths of a
// cent (the end-of-day netting a payments or clearing system runs, one
// account per thread): row i of a CSR matrix lists account i's postings, a
// contiguous int array gives each posting's signed amount in its own
// currency's cents, and the thread sums amount x the currency's fixed-point
// rate (an int, base hundredths of a cent per cent, gathered by currency) as
// a LONG LONG. A 64-bit integer SUM of contiguous int amounts times gathered
// int rates over a row; power-law and "longrows" rows. Written for issue 22's
// fifteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef LN_BLOCK
#define LN_BLOCK 128
#endif

__global__ void ledger_net_cents(const int *__restrict__ row, const int *__restrict__ ccy,
                                 const int *__restrict__ amount, const int *__restrict__ rate,
                                 long long *__restrict__ net, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long s = 0;
  for (int k = row[i]; k < row[i + 1]; ++k) s += (long long)amount[k] * rate[ccy[k]];
  net[i] = s;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 229376)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "ledger_net: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1511)));
  const size_t nnz = a.col.size();
  // Amounts -10^6 to 10^6 cents from the generated values; a posting's
  // currency is its column; rates 100 to 1000000 from a 32-bit hash of it.
  std::vector<int> amount(nnz), rate(static_cast<size_t>(n));
  for (size_t k = 0; k < nnz; ++k) amount[k] = int(a.val[k] * 1000000.0f);
  for (size_t c = 0; c < rate.size(); ++c) {
    unsigned h = unsigned(c) * 0x9E3779B9u + 1512u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    rate[c] = 100 + int(h % 999901u);
  }
  int *drow = loops::to_device(a.rowptr), *dccy = loops::to_device(a.col), *damount = loops::to_device(amount),
      *drate = loops::to_device(rate);
  long long *dnet = loops::device_zeros<long long>(size_t(n));
  loops::timed(args, 12.0 * nnz + 12.0 * n, [&] {
    ledger_net_cents<<<(n + LN_BLOCK - 1) / LN_BLOCK, LN_BLOCK>>>(drow, dccy, damount, drate, dnet, n);
  });
  std::vector<long long> got = loops::from_device(dnet, size_t(n));
  // Integer sums (at most 10^12 a term, far from overflow): exact in any
  // order. The result file holds the low and high 32-bit words.
  size_t bad = 0;
  std::vector<int> lo(static_cast<size_t>(n)), hi(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    long long s = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      s += (long long)amount[size_t(k)] * rate[size_t(a.col[size_t(k)])];
    if (got[size_t(i)] != s) ++bad;
    const unsigned long long u = (unsigned long long)got[size_t(i)];
    lo[size_t(i)] = int(unsigned(u));
    hi[size_t(i)] = int(unsigned(u >> 32));
  }
  std::printf("ledger_net: %d accounts, %zu postings%s\n", n, nnz, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(lo);
  res.add(hi);
  return bad ? 1 : 0;
}
