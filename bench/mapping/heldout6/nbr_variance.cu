// Held-out case (bench/mapping/heldout6.tsv): the variance of every vertex's
// neighbours' feature values (an egonet statistic of graph anomaly detection,
// or the variance aggregator of a GNN's pooling step, written one row per
// thread over a CSR adjacency): one thread per row accumulates the sum and
// the sum of squares of x over its neighbours, then writes
// sumsq / len - (sum / len)^2. Two float sum reductions with a gather;
// power-law and regular rows. Empty rows give 0. Written for issue 22's sixth
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it. (It replaces a local Dirichlet energy on the same inputs, for
// which no rewrite was offered.)
#include "loops_harness.cuh"

#ifndef NVAR_BLOCK
#define NVAR_BLOCK 128
#endif

__global__ void neighbour_variance(int n, const int *rowptr, const int *col, const float *x, float *var) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 0.0f;
    float sq = 0.0f;
    for (int e = rowptr[r]; e < rowptr[r + 1]; ++e) {
      float v = x[col[e]];
      s += v;
      sq += v * v;
    }
    int len = rowptr[r + 1] - rowptr[r];
    if (len > 0) {
      float m = s / len;
      var[r] = sq / len - m * m;
    } else {
      var[r] = 0.0f;
    }
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 131072)), avg = int(args.get("avg", 8));
  if (n < 1) {
    std::fprintf(stderr, "nbr_variance: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 621)));
  std::vector<float> x = loops::random_floats(size_t(n), 622, -1.f, 1.f);
  int *rowptr = loops::to_device(a.rowptr), *col = loops::to_device(a.col);
  float *dx = loops::to_device(x), *var = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 8.0 * a.col.size() + 12.0 * n, [&] {
    neighbour_variance<<<(n + NVAR_BLOCK - 1) / NVAR_BLOCK, NVAR_BLOCK>>>(n, rowptr, col, dx, var);
  });
  std::vector<float> got = loops::from_device(var, size_t(n));
  // The reference in double; values lie in [-1, 1], so the float sums of up
  // to 65536 terms stay far within 1e-3 of it in any order.
  size_t bad = 0;
  for (int r = 0; r < n; ++r) {
    double s = 0, sq = 0;
    const int len = a.rowptr[size_t(r) + 1] - a.rowptr[size_t(r)];
    for (int e = a.rowptr[size_t(r)]; e < a.rowptr[size_t(r) + 1]; ++e) {
      const double v = x[size_t(a.col[size_t(e)])];
      s += v;
      sq += v * v;
    }
    const double want = len > 0 ? sq / len - (s / len) * (s / len) : 0.0;
    if (std::fabs(got[size_t(r)] - want) > 1e-3) ++bad;
  }
  std::printf("nbr_variance: %d rows, %zu entries%s\n", n, a.col.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
