// Held-out case (bench/mapping/heldout20.tsv): the total weight of every
// warehouse order's pick list (what a fulfilment centre's wave planner sums
// to choose a tote or a cart for each order, one order per thread): row i of
// a CSR matrix lists order i's pick lines, a contiguous INT array gives each
// line's quantity, and the thread SUMS, in double, the quantity times the
// item's unit weight (a FLOAT table gathered by the SKU column). A DOUBLE
// SUM of a contiguous int times a gathered float over a CSR row; "longrows"
// rows. Written for issue 22's twentieth held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef PR_BLOCK
#define PR_BLOCK 128
#endif

__global__ void pick_list_weight(const int *__restrict__ row, const int *__restrict__ sku,
                                 const int *__restrict__ qty, const float *__restrict__ unit_kg,
                                 float *__restrict__ kg, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  for (int k = row[i]; k < row[i + 1]; ++k) s += qty[k] * double(unit_kg[sku[k]]);
  kg[i] = float(s);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 524288)), avg = int(args.get("avg", 14));
  if (n < 1) {
    std::fprintf(stderr, "pick_route: --rows must be at least 1\n");
    return 2;
  }
  const std::string kind = args.str("graph", "longrows");
  loops::Csr a = loops::make_csr(n, n, avg, kind == "powerlaw", unsigned(args.get("seed", 2011)));
  const size_t nnz = a.col.size();
  // Quantities 1 to 8 from the generated values; unit weights 0.01 to 40.96
  // kg from 32-bit hashes of the SKU.
  std::vector<int> qty(nnz);
  for (size_t k = 0; k < nnz; ++k) qty[k] = 1 + int((a.val[k] + 1.0f) * 3.5f);
  std::vector<float> unit_kg(static_cast<size_t>(n));
  for (int s = 0; s < n; ++s) {
    unsigned h = unsigned(s) * 0x9E3779B9u + 2012u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    unit_kg[size_t(s)] = 0.01f * float(1u + (h >> 8) % 4096u);
  }
  int *drow = loops::to_device(a.rowptr), *dsku = loops::to_device(a.col), *dqty = loops::to_device(qty);
  float *dunit = loops::to_device(unit_kg);
  float *dkg = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 12.0 * nnz + 8.0 * n, [&] {
    pick_list_weight<<<(n + PR_BLOCK - 1) / PR_BLOCK, PR_BLOCK>>>(drow, dsku, dqty, dunit, dkg, n);
  });
  std::vector<float> got = loops::from_device(dkg, size_t(n));
  // Double sums of non-negative terms rounded to float: a relative tolerance.
  size_t bad = 0;
  double total = 0.0;
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      s += qty[size_t(k)] * double(unit_kg[size_t(a.col[size_t(k)])]);
    total += s;
    if (std::fabs(double(got[size_t(i)]) - s) > 1e-5 * (s + 1.0)) ++bad;
  }
  std::printf("pick_route: %d orders, %zu pick lines, %.3e kg%s\n", n, nnz, total,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
