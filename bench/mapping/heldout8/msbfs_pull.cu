// Held-out case (bench/mapping/heldout8.tsv): one bottom-up (pull) step of a
// multi-source BFS (the bit-parallel MS-BFS of Then et al., as GPU all-pairs
// closeness and betweenness-sampling codes run 32 searches at once): every
// vertex holds a 32-bit mask of the searches that have reached it, and one
// thread per CSR row ORs its in-neighbours' frontier masks (an or-and boolean
// semiring SpMV over 32 lanes), then keeps only the searches it has not seen.
// An integer OR reduction with a gather per entry; power-law and regular rows.
// Written for issue 22's eighth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef MSBFS_BLOCK
#define MSBFS_BLOCK 128
#endif

__global__ void multi_source_pull(int n, const int *rowptr, const int *col, const unsigned *front, const unsigned *seen,
                                  unsigned *next) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    unsigned reach = 0u;
    for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) reach |= front[col[e]];
    next[v] = reach & ~seen[v];
  }
}

static unsigned mix32(unsigned h) {
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 262144)), avg = int(args.get("avg", 8));
  if (n < 1) {
    std::fprintf(stderr, "msbfs_pull: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 801)));
  // A few levels into 32 searches: about one vertex in 12 is on some search's
  // frontier (a sparse mask), and a vertex has been seen by a search with
  // probability about 1/4 per lane.
  std::vector<unsigned> front(static_cast<size_t>(n)), seen(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) {
    const unsigned h = mix32(unsigned(v) * 0x9E3779B9u + 802u), k = mix32(unsigned(v) * 0x85EBCA6Bu + 803u);
    front[size_t(v)] = (h % 12u) == 0 ? (k & mix32(k + 1u)) : 0u;
    seen[size_t(v)] = mix32(h + 7u) & mix32(h + 11u);
  }
  int *rowptr = loops::to_device(a.rowptr), *col = loops::to_device(a.col);
  unsigned *dfront = loops::to_device(front), *dseen = loops::to_device(seen);
  unsigned *next = loops::device_zeros<unsigned>(size_t(n));
  loops::timed(args, 8.0 * a.col.size() + 16.0 * n, [&] {
    multi_source_pull<<<(n + MSBFS_BLOCK - 1) / MSBFS_BLOCK, MSBFS_BLOCK>>>(n, rowptr, col, dfront, dseen, next);
  });
  std::vector<unsigned> got = loops::from_device(next, size_t(n));
  size_t bad = 0;
  for (int v = 0; v < n; ++v) {
    unsigned reach = 0u;
    for (int e = a.rowptr[size_t(v)]; e < a.rowptr[size_t(v) + 1]; ++e) reach |= front[size_t(a.col[size_t(e)])];
    if (got[size_t(v)] != (reach & ~seen[size_t(v)])) ++bad;
  }
  std::printf("msbfs_pull: %d vertices, %zu entries%s\n", n, a.col.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  // The masks as 32-bit integers (tolerance 0: the --out .txt form keeps every bit).
  std::vector<int> bits(got.begin(), got.end());
  loops::ResultFile res(args);
  res.add(bits);
  return bad ? 1 : 0;
}
