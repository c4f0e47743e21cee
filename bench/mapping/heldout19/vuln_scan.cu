// Held-out case (bench/mapping/heldout19.tsv): which software builds pull in
// at least one dependency with a known vulnerability (a supply-chain
// scanner's pass over a package registry's lock files, one build per
// thread): row i of a CSR matrix lists build i's pinned dependencies, a
// contiguous UNSIGNED array gives each pin's version number, and the thread
// keeps a LOGICAL OR, written `hit |= ...` on an int flag, of the pin being
// older than its package's first fixed version (an UNSIGNED table gathered
// by the column; 0 where the package has no advisory). A LOGICAL OR of a
// contiguous unsigned compared with a gathered unsigned over a CSR row;
// "longrows" rows. Written for issue 22's nineteenth held-out set, before
// any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef VS_BLOCK
#define VS_BLOCK 128
#endif

__global__ void any_vulnerable_pin(const int *__restrict__ row, const int *__restrict__ pkg,
                                   const unsigned *__restrict__ pinned, const unsigned *__restrict__ fixed,
                                   int *__restrict__ flagged, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int hit = 0;
  for (int k = row[i]; k < row[i + 1]; ++k) hit |= pinned[k] < fixed[pkg[k]] ? 1 : 0;
  flagged[i] = hit;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 524288)), avg = int(args.get("avg", 16));
  if (n < 1) {
    std::fprintf(stderr, "vuln_scan: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "longrows") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1921)));
  const size_t nnz = a.col.size();
  // Pinned versions 0 to 9999 from the generated values; one package in 64
  // (by a 32-bit hash) has an advisory fixed at version 9000 to 9999.
  std::vector<unsigned> pinned(nnz);
  for (size_t k = 0; k < nnz; ++k) pinned[k] = unsigned((a.val[k] + 1.0f) * 4999.5f);
  std::vector<unsigned> fixed(static_cast<size_t>(n));
  for (int p = 0; p < n; ++p) {
    unsigned h = unsigned(p) * 0x9E3779B9u + 1922u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    fixed[size_t(p)] = (h & 63u) == 0u ? 9000u + (h >> 8) % 1000u : 0u;
  }
  int *drow = loops::to_device(a.rowptr), *dpkg = loops::to_device(a.col);
  unsigned *dpin = loops::to_device(pinned), *dfix = loops::to_device(fixed);
  int *dflag = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 12.0 * nnz + 8.0 * n, [&] {
    any_vulnerable_pin<<<(n + VS_BLOCK - 1) / VS_BLOCK, VS_BLOCK>>>(drow, dpkg, dpin, dfix, dflag, n);
  });
  std::vector<int> got = loops::from_device(dflag, size_t(n));
  // Integer flags: exact.
  size_t bad = 0, hits = 0;
  for (int i = 0; i < n; ++i) {
    int hit = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      hit |= pinned[size_t(k)] < fixed[size_t(a.col[size_t(k)])] ? 1 : 0;
    hits += size_t(hit);
    if (got[size_t(i)] != hit) ++bad;
  }
  std::printf("vuln_scan: %d builds, %zu pins, %zu flagged%s\n", n, nnz, hits,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
