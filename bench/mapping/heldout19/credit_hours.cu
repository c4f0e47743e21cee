// Held-out case (bench/mapping/heldout19.tsv): every student's weighted
// credit load for the term (the registrar's check against the full-time and
// overload limits, one student per thread): row i of a CSR matrix lists
// student i's enrolments, a contiguous UNSIGNED CHAR array gives each
// enrolment's multiplier (1 for a plain course, 2 when a lab is taken with
// it), and the thread SUMS, into an int, the multiplier times the course's
// credits (an UNSIGNED CHAR table gathered by the column). An INT SUM of a
// contiguous unsigned char times a gathered unsigned char over a CSR row;
// regular rows, 12 a row. Written for issue 22's nineteenth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef CH_BLOCK
#define CH_BLOCK 128
#endif

__global__ void weighted_credit_load(const int *__restrict__ row, const int *__restrict__ course,
                                     const unsigned char *__restrict__ mult, const unsigned char *__restrict__ credits,
                                     int *__restrict__ load, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int s = 0;
  for (int k = row[i]; k < row[i + 1]; ++k) s += int(mult[k]) * int(credits[course[k]]);
  load[i] = s;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 786432)), avg = int(args.get("avg", 12));
  if (n < 1) {
    std::fprintf(stderr, "credit_hours: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "regular") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1911)));
  const size_t nnz = a.col.size();
  // Multipliers 1 or 2 from the generated values (one in four with a lab);
  // credits 1 to 6 per course from 32-bit hashes.
  std::vector<unsigned char> mult(nnz);
  for (size_t k = 0; k < nnz; ++k) mult[k] = a.val[k] > 0.5f ? 2 : 1;
  std::vector<unsigned char> credits(static_cast<size_t>(n));
  for (int c = 0; c < n; ++c) {
    unsigned h = unsigned(c) * 0x9E3779B9u + 1912u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    credits[size_t(c)] = (unsigned char)(1u + (h >> 4) % 6u);
  }
  int *drow = loops::to_device(a.rowptr), *dcourse = loops::to_device(a.col);
  unsigned char *dmult = loops::to_device(mult), *dcred = loops::to_device(credits);
  int *dload = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 6.0 * nnz + 8.0 * n, [&] {
    weighted_credit_load<<<(n + CH_BLOCK - 1) / CH_BLOCK, CH_BLOCK>>>(drow, dcourse, dmult, dcred, dload, n);
  });
  std::vector<int> got = loops::from_device(dload, size_t(n));
  // Integer sums: exact.
  size_t bad = 0, over = 0;
  for (int i = 0; i < n; ++i) {
    int s = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      s += int(mult[size_t(k)]) * int(credits[size_t(a.col[size_t(k)])]);
    over += s > 60;
    if (got[size_t(i)] != s) ++bad;
  }
  std::printf("credit_hours: %d students, %zu enrolments, %zu above 60%s\n", n, nnz, over,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
