// Held-out case (bench/mapping/heldout14.tsv): how many literals of every
// clause a candidate assignment makes true (the "true count" a WalkSAT- or
// probSAT-style local search keeps per clause, one clause per thread): row i
// of a CSR matrix lists clause i's variables, a contiguous signed-char array
// gives each literal's polarity (+1 or -1), the assignment is one byte per
// variable (0 or 1), and the thread counts the literals whose polarity agrees
// with the gathered value. An integer COUNT over a row of gathered UNSIGNED
// CHAR values compared with contiguous SIGNED CHAR polarities; power-law and
// "longrows" rows. Written for issue 22's fourteenth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef SAT_BLOCK
#define SAT_BLOCK 128
#endif

__global__ void count_true_literals(const int *__restrict__ row, const int *__restrict__ var,
                                    const signed char *__restrict__ sign, const unsigned char *__restrict__ assign,
                                    int *__restrict__ trues, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int t = 0;
  for (int k = row[i]; k < row[i + 1]; ++k) t += (sign[k] > 0) == (assign[var[k]] != 0) ? 1 : 0;
  trues[i] = t;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "sat_clauses: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1401)));
  const size_t nnz = a.col.size();
  // Polarities from the sign of the generated values; the assignment from a
  // 32-bit hash of the variable.
  std::vector<signed char> sign(nnz);
  for (size_t k = 0; k < nnz; ++k) sign[k] = a.val[k] < 0.0f ? -1 : 1;
  std::vector<unsigned char> assign(static_cast<size_t>(n));
  for (size_t v = 0; v < assign.size(); ++v) {
    unsigned h = unsigned(v) * 0x9E3779B9u + 1401u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    assign[v] = (h >> 7) & 1u;
  }
  int *drow = loops::to_device(a.rowptr), *dvar = loops::to_device(a.col);
  signed char *dsign = loops::to_device(sign);
  unsigned char *dassign = loops::to_device(assign);
  int *cnt = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 6.0 * nnz + 8.0 * n, [&] {
    count_true_literals<<<(n + SAT_BLOCK - 1) / SAT_BLOCK, SAT_BLOCK>>>(drow, dvar, dsign, dassign, cnt, n);
  });
  std::vector<int> got = loops::from_device(cnt, size_t(n));
  size_t bad = 0, unsat = 0;
  for (int i = 0; i < n; ++i) {
    int t = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      t += (sign[size_t(k)] > 0) == (assign[size_t(a.col[size_t(k)])] != 0);
    unsat += t == 0;
    if (got[size_t(i)] != t) ++bad;
  }
  std::printf("sat_clauses: %d clauses, %zu literals, %zu unsatisfied%s\n", n, nnz, unsat,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
