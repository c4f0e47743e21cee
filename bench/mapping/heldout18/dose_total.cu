// Held-out case (bench/mapping/heldout18.tsv): every worker's cumulative
// radiation dose over a shift roster (the dosimetry report of a plant's
// radiation-protection office, one worker per thread): row i of a CSR matrix
// lists the zones worker i entered, a contiguous FLOAT array gives the
// minutes spent on each entry, and the thread sums, as a DOUBLE, minutes
// times the zone's dose rate (a DOUBLE table gathered by the column). A
// DOUBLE SUM of a contiguous float times a gathered double over a CSR row;
// regular rows. Written for issue 22's eighteenth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef DT_BLOCK
#define DT_BLOCK 128
#endif

__global__ void cumulative_dose(const int *__restrict__ row, const int *__restrict__ zone,
                                const float *__restrict__ minutes, const double *__restrict__ rate,
                                float *__restrict__ dose, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  for (int k = row[i]; k < row[i + 1]; ++k) s += double(minutes[k]) * rate[zone[k]];
  dose[i] = float(s);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 1048576)), avg = int(args.get("avg", 16));
  if (n < 1) {
    std::fprintf(stderr, "dose_total: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "regular") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1811)));
  const size_t nnz = a.col.size();
  // Minutes 1 to 61 from the generated values; dose rates 0.05 to 20.5
  // microsievert a minute per zone from 32-bit hashes.
  std::vector<float> minutes(nnz);
  for (size_t k = 0; k < nnz; ++k) minutes[k] = 1.0f + (a.val[k] + 1.0f) * 30.0f;
  std::vector<double> rate(static_cast<size_t>(n));
  for (int z = 0; z < n; ++z) {
    unsigned h = unsigned(z) * 0x9E3779B9u + 1812u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    rate[size_t(z)] = 0.05 + double(h % 4096u) * 0.005;
  }
  int *drow = loops::to_device(a.rowptr), *dzone = loops::to_device(a.col);
  float *dmin = loops::to_device(minutes);
  double *drate = loops::to_device(rate);
  float *ddose = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 16.0 * nnz + 8.0 * n, [&] {
    cumulative_dose<<<(n + DT_BLOCK - 1) / DT_BLOCK, DT_BLOCK>>>(drow, dzone, dmin, drate, ddose, n);
  });
  std::vector<float> got = loops::from_device(ddose, size_t(n));
  // Double sums of positive terms rounded to float: a relative tolerance.
  size_t bad = 0;
  double total = 0.0;
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      s += double(minutes[size_t(k)]) * rate[size_t(a.col[size_t(k)])];
    total += s;
    if (std::fabs(double(got[size_t(i)]) - s) > 1e-5 * (s + 1.0)) ++bad;
  }
  std::printf("dose_total: %d workers, %zu entries, %.1f Sv in all%s\n", n, nnz, total * 1e-6,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
