// Held-out case (bench/mapping/heldout6.tsv): the wait counts of a Jones-
// Plassmann graph colouring (the dependency-counting form LonestarGPU-style
// colouring codes start from): for every vertex, the number of its
// neighbours that come before it in the random priority order (a higher
// priority, ties broken by the larger id), i.e. how many neighbours must be
// coloured before it may choose a colour. One thread per vertex; an integer
// count with a gather and a compare per entry, on power-law and regular rows.
// Written for issue 22's sixth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef JP_BLOCK
#define JP_BLOCK 64
#endif

__global__ void count_higher_priority(int n, const int *rowptr, const int *col, const unsigned *prio, int *wait) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    unsigned p = prio[v];
    int c = 0;
    for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) {
      int u = col[e];
      unsigned q = prio[u];
      c += (q > p || (q == p && u > v)) ? 1 : 0;
    }
    wait[v] = c;
  }
}

// A vertex's priority, from its id (a 32-bit integer hash: cheap to draw).
static unsigned priority_of(unsigned v) {
  v ^= v >> 16;
  v *= 0x7FEB352Du;
  v ^= v >> 15;
  v *= 0x846CA68Bu;
  return (v ^ (v >> 16)) >> 12;  // 20 bits: some ties
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 262144)), avg = int(args.get("avg", 8));
  if (n < 1) {
    std::fprintf(stderr, "jp_wait: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 611)));
  std::vector<unsigned> prio(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) prio[size_t(v)] = priority_of(unsigned(v));
  int *rowptr = loops::to_device(a.rowptr), *col = loops::to_device(a.col), *wait = loops::device_zeros<int>(size_t(n));
  unsigned *dprio = loops::to_device(prio);
  loops::timed(args, 8.0 * a.col.size() + 12.0 * n, [&] {
    count_higher_priority<<<(n + JP_BLOCK - 1) / JP_BLOCK, JP_BLOCK>>>(n, rowptr, col, dprio, wait);
  });
  std::vector<int> got = loops::from_device(wait, size_t(n));
  size_t bad = 0;
  for (int v = 0; v < n; ++v) {
    int c = 0;
    for (int e = a.rowptr[size_t(v)]; e < a.rowptr[size_t(v) + 1]; ++e) {
      const int u = a.col[size_t(e)];
      c += prio[size_t(u)] > prio[size_t(v)] || (prio[size_t(u)] == prio[size_t(v)] && u > v);
    }
    if (got[size_t(v)] != c) ++bad;
  }
  std::printf("jp_wait: %d vertices, %zu entries%s\n", n, a.col.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
