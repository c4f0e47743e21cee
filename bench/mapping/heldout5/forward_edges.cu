// Held-out case (bench/mapping/heldout5.tsv): for every vertex of a graph in
// CSR, the number of out-neighbours with a larger id (the orientation pass
// before a triangle or k-clique count, which keeps only the edges that point
// "forward" in the id order, as LonestarGPU- and Gunrock-style counting codes
// size their oriented lists): one thread per row counts the entries of its
// CSR range whose column exceeds its own id. An integer count reduction over
// the column indices (no gather), on power-law and regular rows. Written for
// issue 22's fifth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it. (It replaces a same-label neighbour count,
// for which fewer than two rewrites were offered.)
#include "loops_harness.cuh"

#ifndef FWD_BLOCK
#define FWD_BLOCK 64
#endif

__global__ void count_forward_edges(int n, const int *rowptr, const int *col, int *forward) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    int c = 0;
    for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) c += (col[e] > v);
    forward[v] = c;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 262144)), avg = int(args.get("avg", 8));
  if (n < 1) {
    std::fprintf(stderr, "forward_edges: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 511)));
  int *rowptr = loops::to_device(a.rowptr), *col = loops::to_device(a.col);
  int *forward = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 4.0 * a.col.size() + 12.0 * n, [&] {
    count_forward_edges<<<(n + FWD_BLOCK - 1) / FWD_BLOCK, FWD_BLOCK>>>(n, rowptr, col, forward);
  });
  std::vector<int> got = loops::from_device(forward, size_t(n));
  size_t bad = 0;
  for (int v = 0; v < n; ++v) {
    int c = 0;
    for (int e = a.rowptr[size_t(v)]; e < a.rowptr[size_t(v) + 1]; ++e) c += a.col[size_t(e)] > v;
    if (got[size_t(v)] != c) ++bad;
  }
  std::printf("forward_edges: %d rows, %zu entries%s\n", n, a.col.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
