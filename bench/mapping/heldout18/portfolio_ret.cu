// Held-out case (bench/mapping/heldout18.tsv): every client portfolio's
// return for the day (the end-of-day valuation a robo-advisor or a fund
// administrator runs over all its accounts, one portfolio per thread):
// portfolio p's NASSET DOUBLE weights are stored together (row-major, p x
// NASSET + a), the day's asset returns are NASSET FLOATS every thread reads
// in the same order, and the thread sums, as a DOUBLE, weight times return
// over a MACRO-BOUNDED loop (a < NASSET); 40 assets. A DOUBLE SUM of a
// row-major double times a broadcast float. Written for issue 22's
// eighteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef PR_BLOCK
#define PR_BLOCK 128
#endif

#ifndef NASSET
#define NASSET 40
#endif

__global__ void portfolio_return(const double *__restrict__ weight, const float *__restrict__ ret,
                                 float *__restrict__ pnl, int nport) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= nport) return;
  double s = 0.0;
  for (int a = 0; a < NASSET; ++a) s += weight[size_t(p) * NASSET + a] * double(ret[a]);
  pnl[p] = float(s);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nport = int(args.get("portfolios", 1 << 20));
  if (nport < 1) {
    std::fprintf(stderr, "portfolio_ret: --portfolios must be at least 1\n");
    return 2;
  }
  // Returns -4% to +5% (mt19937); weights 0 to 0.05 from xorshift64*, two
  // 24-bit draws a step (not normalised: cash makes up the rest).
  std::vector<float> ret = loops::random_floats(size_t(NASSET), 1851u, -0.04f, 0.05f);
  const size_t nw = size_t(nport) * NASSET;
  std::vector<double> weight(nw);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1852u;
  for (size_t k = 0; k < nw; k += 2) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    weight[k] = double(h >> 40) * (0.05 / 16777216.0);
    weight[k + 1] = double((h >> 16) & 0xFFFFFFull) * (0.05 / 16777216.0);
  }
  double *dweight = loops::to_device(weight);
  float *dret = loops::to_device(ret);
  float *dpnl = loops::device_zeros<float>(size_t(nport));
  loops::timed(args, 8.0 * double(nw) + 4.0 * nport, [&] {
    portfolio_return<<<(nport + PR_BLOCK - 1) / PR_BLOCK, PR_BLOCK>>>(dweight, dret, dpnl, nport);
  });
  std::vector<float> got = loops::from_device(dpnl, size_t(nport));
  // Double sums rounded to float: compared with a relative tolerance (and an
  // absolute one near 0); the serial reference checks every 4th portfolio.
  size_t bad = 0, gain = 0;
  for (int p = 0; p < nport; p += 4) {
    double s = 0.0;
    for (int a = 0; a < NASSET; ++a) s += weight[size_t(p) * NASSET + size_t(a)] * double(ret[size_t(a)]);
    gain += s > 0.0;
    if (std::fabs(double(got[size_t(p)]) - s) > 1e-5 * (std::fabs(s) + 1e-3)) ++bad;
  }
  std::printf("portfolio_ret: %d portfolios of %d assets, %zu of the checked gained%s\n", nport, NASSET, gain,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
