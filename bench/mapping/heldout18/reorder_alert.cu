// Held-out case (bench/mapping/heldout18.tsv): how many order lines of every
// replenishment batch fall below their reorder point (the nightly check of
// an inventory system that decides which batches to expedite, one batch per
// thread): row i of a CSR matrix lists the lines of batch i, a contiguous
// UNSIGNED SHORT array gives each line's reorder point, and the thread
// COUNTS, into an int, the lines whose SKU's on-hand quantity (an UNSIGNED
// SHORT table gathered by the column) is below it. An INT COUNT of a
// gathered unsigned short compared with a contiguous unsigned short over a
// CSR row; power-law rows. Written for issue 22's eighteenth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef RA_BLOCK
#define RA_BLOCK 128
#endif

__global__ void lines_below_reorder(const int *__restrict__ row, const int *__restrict__ sku,
                                    const unsigned short *__restrict__ reorder,
                                    const unsigned short *__restrict__ onhand, int *__restrict__ below, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int count = 0;
  for (int k = row[i]; k < row[i + 1]; ++k) count += onhand[sku[k]] < reorder[k] ? 1 : 0;
  below[i] = count;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 147456)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "reorder_alert: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1801)));
  const size_t nnz = a.col.size();
  // Reorder points 20 to 520 from the generated values; on-hand quantities
  // 0 to 999 per SKU from 32-bit hashes.
  std::vector<unsigned short> reorder(nnz);
  for (size_t k = 0; k < nnz; ++k) reorder[k] = (unsigned short)(20 + int((a.val[k] + 1.0f) * 250.0f));
  std::vector<unsigned short> onhand(static_cast<size_t>(n));
  for (int s = 0; s < n; ++s) {
    unsigned h = unsigned(s) * 0x9E3779B9u + 1802u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    onhand[size_t(s)] = (unsigned short)((h >> 4) % 1000u);
  }
  int *drow = loops::to_device(a.rowptr), *dsku = loops::to_device(a.col);
  unsigned short *dreorder = loops::to_device(reorder), *donhand = loops::to_device(onhand);
  int *dbelow = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 8.0 * nnz + 8.0 * n, [&] {
    lines_below_reorder<<<(n + RA_BLOCK - 1) / RA_BLOCK, RA_BLOCK>>>(drow, dsku, dreorder, donhand, dbelow, n);
  });
  std::vector<int> got = loops::from_device(dbelow, size_t(n));
  // Integer counts: exact.
  size_t bad = 0, total = 0;
  for (int i = 0; i < n; ++i) {
    int count = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      count += onhand[size_t(a.col[size_t(k)])] < reorder[size_t(k)] ? 1 : 0;
    total += size_t(count);
    if (got[size_t(i)] != count) ++bad;
  }
  std::printf("reorder_alert: %d batches, %zu lines, %zu below reorder%s\n", n, nnz, total,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
