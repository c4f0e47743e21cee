// Held-out case (bench/mapping/heldout13.tsv): every node's most negative
// reduced arc cost (the pricing step of a network-simplex or a primal-dual
// min-cost-flow solver, one node per thread): row i of a CSR matrix holds
// node i's out-arcs as 8-byte Arc records (head, cost) stored in the row, and
// the thread takes the minimum over the row of cost - pi[i] + pi[head], the
// node potentials pi gathered in DOUBLE (+infinity for a node without arcs).
// A double MIN over a contiguous row of array-of-structs records with a
// gathered double; regular rows. Written for issue 22's thirteenth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it.
#include "loops_harness.cuh"

#ifndef RC_BLOCK
#define RC_BLOCK 128
#endif

struct Arc {
  int head;
  float cost;
};

__global__ void min_reduced_cost(const int *__restrict__ row, const Arc *__restrict__ arcs,
                                 const double *__restrict__ pi, float *__restrict__ best, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double pi_i = pi[i];
  double m = INFINITY;
  for (int k = row[i]; k < row[i + 1]; ++k) m = fmin(m, double(arcs[k].cost) - pi_i + pi[arcs[k].head]);
  best[i] = float(m);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 524288)), avg = int(args.get("avg", 12));
  if (n < 1) {
    std::fprintf(stderr, "reduced_cost: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "regular") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1341)));
  const size_t nnz = a.col.size();
  // Arc costs 0 to 100 (the harness's values, rescaled), potentials 0 to 50.
  std::vector<Arc> arcs(nnz);
  for (size_t k = 0; k < nnz; ++k) arcs[k] = Arc{a.col[k], 50.0f * (a.val[k] + 1.0f)};
  std::vector<float> pf = loops::random_floats(size_t(n), 1342u, 0.0f, 50.0f);
  std::vector<double> pi(pf.begin(), pf.end());
  int *drow = loops::to_device(a.rowptr);
  Arc *darcs = loops::to_device(arcs);
  double *dpi = loops::to_device(pi);
  float *best = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 16.0 * nnz + 16.0 * n, [&] {
    min_reduced_cost<<<(n + RC_BLOCK - 1) / RC_BLOCK, RC_BLOCK>>>(drow, darcs, dpi, best, n);
  });
  std::vector<float> got = loops::from_device(best, size_t(n));
  // A minimum is exact in any order (each candidate is computed the same
  // way), so the float results compare exactly.
  size_t bad = 0, negative = 0;
  for (int i = 0; i < n; ++i) {
    double m = INFINITY;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      m = std::fmin(m, double(arcs[size_t(k)].cost) - pi[size_t(i)] + pi[size_t(arcs[size_t(k)].head)]);
    negative += m < 0;
    if (got[size_t(i)] != float(m)) ++bad;
  }
  std::printf("reduced_cost: %d nodes, %zu arcs, %zu with a negative reduced cost%s\n", n, nnz, negative,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
