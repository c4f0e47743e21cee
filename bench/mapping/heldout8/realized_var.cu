// Held-out case (bench/mapping/heldout8.tsv): the realized variance of every
// asset's price path (the sum of squared step returns that a back-tester or
// a Monte-Carlo pricer reports per path as its volatility estimate): prices
// are stored time-major, the price of asset i at step t at t * assets + i (as
// a simulation writes one step for all paths at a time), and one thread per
// asset walks its column summing r_t^2 for r_t = p_t / p_(t-1) - 1, reading
// the price of the step before beside each price. A float sum over a strided
// walk, coalesced across threads, with two reads and a division per step;
// 40 and 1024 steps. Written for issue 22's eighth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it. (It replaces,
// on the same price paths, the maximum drawdown of every path (a running peak
// carried across the walk), for which no rewrite was offered.)
#include "loops_harness.cuh"

#ifndef RVAR_BLOCK
#define RVAR_BLOCK 256
#endif

__global__ void realized_variance(const float *price, float *rv, int assets, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < assets) {
    float s = 0.0f;
    for (int t = 1; t < steps; ++t) {
      float r = price[(size_t)t * assets + i] / price[(size_t)(t - 1) * assets + i] - 1.0f;
      s += r * r;
    }
    rv[i] = s;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int assets = int(args.get("assets", 1048576)), steps = int(args.get("steps", 40));
  if (assets < 1 || steps < 1) {
    std::fprintf(stderr, "realized_var: --assets and --steps must be at least 1\n");
    return 2;
  }
  // Geometric random walks from 100 with step returns in [-2%, +2%) from a
  // 32-bit hash, one step for all assets at a time.
  const size_t total = size_t(assets) * steps;
  std::vector<float> price(total);
  for (int i = 0; i < assets; ++i) price[size_t(i)] = 100.0f;
  for (size_t j = size_t(assets); j < total; ++j) {
    unsigned h = unsigned(j) * 0x9E3779B9u + 831u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    const float r = float(h >> 8) * (0.04f / 16777216.0f) - 0.02f;
    price[j] = price[j - size_t(assets)] * (1.0f + r);
  }
  float *dprice = loops::to_device(price), *rv = loops::device_zeros<float>(size_t(assets));
  loops::timed(args, 4.0 * double(total) + 4.0 * assets, [&] {
    realized_variance<<<(assets + RVAR_BLOCK - 1) / RVAR_BLOCK, RVAR_BLOCK>>>(dprice, rv, assets, steps);
  });
  std::vector<float> got = loops::from_device(rv, size_t(assets));
  // The reference in double from the same float prices; squared returns are
  // below 4e-4 each, so every sum is far below 1 and the float sums (in any
  // order) stay within 1e-3 of it.
  size_t bad = 0;
  for (int i = 0; i < assets; ++i) {
    double s = 0;
    for (int t = 1; t < steps; ++t) {
      const double r = double(price[size_t(t) * assets + size_t(i)]) / price[size_t(t - 1) * assets + size_t(i)] - 1.0;
      s += r * r;
    }
    if (std::fabs(got[size_t(i)] - s) > 1e-3 * std::max(1.0, std::fabs(s))) ++bad;
  }
  std::printf("realized_var: %d assets x %d steps%s\n", assets, steps, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
