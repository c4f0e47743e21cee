// Held-out case (bench/mapping/heldout17.tsv): which users still see a
// suspended account (the timeline-safety sweep a social network runs after
// a moderation batch, one user per thread): row i of a CSR matrix lists the
// accounts user i follows, a contiguous UNSIGNED CHAR array marks the follows
// the user has muted, and the thread keeps a LOGICAL OR, written `seen |=
// ...` on an int flag, of the gathered UNSIGNED CHAR suspension flag of the
// followed account on a follow that is not muted. A LOGICAL OR of a gathered
// byte and a contiguous byte over a CSR row; "longrows" rows. Written for
// issue 22's seventeenth held-out set, before any tuning on it; no weight of
// the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef ME_BLOCK
#define ME_BLOCK 256
#endif

__global__ void sees_suspended(const int *__restrict__ row, const int *__restrict__ followee,
                               const unsigned char *__restrict__ muted, const unsigned char *__restrict__ suspended,
                               int *__restrict__ exposed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int seen = 0;
  for (int k = row[i]; k < row[i + 1]; ++k) seen |= suspended[followee[k]] & (muted[k] ^ 1);
  exposed[i] = seen;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 786432)), avg = int(args.get("avg", 24));
  if (n < 1) {
    std::fprintf(stderr, "muted_exposure: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "longrows") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1711)));
  const size_t nnz = a.col.size();
  // One follow in four muted (from the generated values); one account in
  // 600 suspended (from 32-bit hashes), so most users see none.
  std::vector<unsigned char> muted(nnz);
  for (size_t k = 0; k < nnz; ++k) muted[k] = (unsigned char)(a.val[k] > 0.5f);
  std::vector<unsigned char> suspended(static_cast<size_t>(n));
  for (int u = 0; u < n; ++u) {
    unsigned h = unsigned(u) * 0x9E3779B9u + 1712u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    suspended[size_t(u)] = (unsigned char)(h % 600u == 0u);
  }
  int *drow = loops::to_device(a.rowptr), *dfol = loops::to_device(a.col);
  unsigned char *dmuted = loops::to_device(muted), *dsusp = loops::to_device(suspended);
  int *dexp = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 6.0 * nnz + 8.0 * n, [&] {
    sees_suspended<<<(n + ME_BLOCK - 1) / ME_BLOCK, ME_BLOCK>>>(drow, dfol, dmuted, dsusp, dexp, n);
  });
  std::vector<int> got = loops::from_device(dexp, size_t(n));
  // Flags: exact.
  size_t bad = 0, seen_total = 0;
  for (int i = 0; i < n; ++i) {
    int seen = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      seen |= suspended[size_t(a.col[size_t(k)])] & (muted[size_t(k)] ^ 1);
    seen_total += size_t(seen);
    if (got[size_t(i)] != seen) ++bad;
  }
  std::printf("muted_exposure: %d users, %zu follows, %zu exposed%s\n", n, nnz, seen_total,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
