// Held-out case (bench/mapping/heldout20.tsv): every invoice's net amount in
// cents (what an accounts-receivable batch totals before tax and posting, one
// invoice per thread): invoice v's nline signed INT line amounts (charges
// positive, credits and discounts negative) are stored together (row-major,
// v x nline + l), and the thread SUMS them in a LONG LONG over a
// PARAMETER-TRIP loop (l < nline); 40 lines. A LONG LONG SUM of a row-major
// int, stored as an int (it fits). Written for issue 22's twentieth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it.
#include "loops_harness.cuh"

#ifndef IN_BLOCK
#define IN_BLOCK 128
#endif

__global__ void invoice_net_cents(const int *__restrict__ cents, int *__restrict__ net, int ninv, int nline) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= ninv) return;
  long long s = 0;
  for (int l = 0; l < nline; ++l) s += cents[size_t(v) * nline + l];
  net[v] = int(s);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int ninv = int(args.get("invoices", 1 << 20)), nline = int(args.get("lines", 40));
  if (ninv < 1 || nline < 1 || nline > 100) {
    std::fprintf(stderr, "invoice_net: --invoices must be at least 1, --lines 1 to 100\n");
    return 2;
  }
  // Line amounts from xorshift64*, two a draw: 0 to 2^20 - 1 cents, negated
  // when the draw's bit 0 (first) or bit 1 (second) is set and bits 2-4 are
  // 0 (one line in 16 a credit). 100 lines stay below 2^31 in absolute value.
  const size_t ns = size_t(ninv) * size_t(nline);
  std::vector<int> cents(ns + 2);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 2041u;
  for (size_t k = 0; k < ns; k += 2) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    const bool credit = ((h >> 2) & 7u) == 0u;
    const int a = int((h >> 20) & 0xFFFFFu), b = int((h >> 40) & 0xFFFFFu);
    cents[k] = credit && (h & 1u) ? -a : a;
    cents[k + 1] = credit && (h & 2u) ? -b : b;
  }
  int *dcents = loops::to_device(cents);
  int *dnet = loops::device_zeros<int>(size_t(ninv));
  loops::timed(args, 4.0 * double(ns) + 4.0 * ninv, [&] {
    invoice_net_cents<<<(ninv + IN_BLOCK - 1) / IN_BLOCK, IN_BLOCK>>>(dcents, dnet, ninv, nline);
  });
  std::vector<int> got = loops::from_device(dnet, size_t(ninv));
  // Integer sums: exact; the serial reference checks every 4th invoice.
  size_t bad = 0;
  long long total = 0;
  for (int v = 0; v < ninv; v += 4) {
    long long s = 0;
    for (int l = 0; l < nline; ++l) s += cents[size_t(v) * size_t(nline) + size_t(l)];
    total += s;
    if (got[size_t(v)] != int(s)) ++bad;
  }
  std::printf("invoice_net: %d invoices of %d lines, %lld cents in the checked%s\n", ninv, nline, total,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
