// Held-out case (bench/mapping/heldout14.tsv): one pull step of a widest-path
// (maximum-bottleneck) solver (the relaxation a bandwidth-routing or
// max-capacity-path computation repeats, one vertex per thread): row i of a
// CSR matrix lists vertex i's in-edges, a contiguous array of 32-bit
// capacities gives each edge's width, and the thread takes the MAX over its
// in-edges of min(edge capacity, the source's current width, gathered). An
// UNSIGNED INT MAX of a MIN over a row; power-law and regular rows. Written
// for issue 22's fourteenth held-out set, before any tuning on it; no weight
// of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef WD_BLOCK
#define WD_BLOCK 128
#endif

__global__ void widest_pull_step(const int *__restrict__ row, const int *__restrict__ src,
                                 const unsigned *__restrict__ cap, const unsigned *__restrict__ width,
                                 unsigned *__restrict__ next, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned best = width[i];
  for (int k = row[i]; k < row[i + 1]; ++k) best = max(best, min(cap[k], width[src[k]]));
  next[i] = best;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 229376)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "widest_pull: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1421)));
  const size_t nnz = a.col.size();
  // Capacities 1 to 2^20 from the generated values; current widths: 0 (not
  // reached) for about half the vertices, else a hashed width.
  std::vector<unsigned> cap(nnz), width(static_cast<size_t>(n));
  for (size_t k = 0; k < nnz; ++k) cap[k] = 1u + unsigned((a.val[k] + 1.0f) * 524287.0f);
  for (size_t v = 0; v < width.size(); ++v) {
    unsigned h = unsigned(v) * 0x9E3779B9u + 1421u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    width[v] = (h & 1u) ? (h >> 12) : 0u;
  }
  int *drow = loops::to_device(a.rowptr), *dsrc = loops::to_device(a.col);
  unsigned *dcap = loops::to_device(cap), *dwidth = loops::to_device(width);
  unsigned *dnext = loops::device_zeros<unsigned>(size_t(n));
  loops::timed(args, 12.0 * nnz + 12.0 * n, [&] {
    widest_pull_step<<<(n + WD_BLOCK - 1) / WD_BLOCK, WD_BLOCK>>>(drow, dsrc, dcap, dwidth, dnext, n);
  });
  std::vector<unsigned> got = loops::from_device(dnext, size_t(n));
  size_t bad = 0, improved = 0;
  for (int i = 0; i < n; ++i) {
    unsigned best = width[size_t(i)];
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      best = std::max(best, std::min(cap[size_t(k)], width[size_t(a.col[size_t(k)])]));
    improved += best != width[size_t(i)];
    if (got[size_t(i)] != best) ++bad;
  }
  std::printf("widest_pull: %d vertices, %zu edges, %zu improved%s\n", n, nnz, improved,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
