// Held-out case (bench/mapping/heldout17.tsv): every picking wave's worst
// stock shortfall (the pre-release check a warehouse management system runs
// before it frees a wave of orders to the pickers, one wave per thread): row
// i of a CSR matrix lists the order lines of wave i, a contiguous UNSIGNED
// SHORT array gives each line's ordered quantity, and the thread takes the
// largest quantity less the on-hand stock of the line's SKU (an int table
// gathered by the column), as an INT MAX from 0 (0: every line can be
// filled). An INT MAX of a contiguous unsigned short less a gathered int over
// a CSR row; power-law rows. Written for issue 22's seventeenth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef SS_BLOCK
#define SS_BLOCK 128
#endif

__global__ void worst_shortfall(const int *__restrict__ row, const int *__restrict__ sku,
                                const unsigned short *__restrict__ qty, const int *__restrict__ stock,
                                int *__restrict__ shortfall, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int worst = 0;
  for (int k = row[i]; k < row[i + 1]; ++k) worst = max(worst, int(qty[k]) - stock[sku[k]]);
  shortfall[i] = worst;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 163840)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "stock_shortfall: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1701)));
  const size_t nnz = a.col.size();
  // Quantities 1 to 400 from the generated values; on-hand stock 0 to 399
  // per SKU from 32-bit hashes (one SKU in eight is out of stock).
  std::vector<unsigned short> qty(nnz);
  for (size_t k = 0; k < nnz; ++k) qty[k] = (unsigned short)(1 + int((a.val[k] + 1.0f) * 199.99f));
  std::vector<int> stock(static_cast<size_t>(n));
  for (int s = 0; s < n; ++s) {
    unsigned h = unsigned(s) * 0x9E3779B9u + 1702u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    stock[size_t(s)] = (h & 7u) == 0u ? 0 : int((h >> 8) % 400u);
  }
  int *drow = loops::to_device(a.rowptr), *dsku = loops::to_device(a.col), *dstock = loops::to_device(stock);
  unsigned short *dqty = loops::to_device(qty);
  int *dshort = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 10.0 * nnz + 8.0 * n, [&] {
    worst_shortfall<<<(n + SS_BLOCK - 1) / SS_BLOCK, SS_BLOCK>>>(drow, dsku, dqty, dstock, dshort, n);
  });
  std::vector<int> got = loops::from_device(dshort, size_t(n));
  // Integer maxima: exact.
  size_t bad = 0, short_waves = 0;
  for (int i = 0; i < n; ++i) {
    int worst = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      worst = std::max(worst, int(qty[size_t(k)]) - stock[size_t(a.col[size_t(k)])]);
    short_waves += worst > 0;
    if (got[size_t(i)] != worst) ++bad;
  }
  std::printf("stock_shortfall: %d waves, %zu order lines, %zu short%s\n", n, nnz, short_waves,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
