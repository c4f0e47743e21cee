// Held-out case (bench/mapping/heldout14.tsv): the mean pinball (quantile)
// loss of a logistic forecast at many observations (how a probabilistic
// forecast is scored, one observation per thread): observation s has a
// forecast location and scale, and the thread sums, over NQ quantile levels
// tau (a float array every thread reads in the same order), the pinball loss
// of y against the forecast's tau-quantile mu + scale x log(tau / (1 - tau)),
// computed in the loop with logf. A float sum with logf and a two-way select
// over a PARAMETER-TRIP loop of broadcast floats; 48 and 384 levels. Written
// for issue 22's fourteenth held-out set, before any tuning on it; no weight
// of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef PB_BLOCK
#define PB_BLOCK 256
#endif

__global__ void logistic_pinball_loss(const float *__restrict__ y, const float *__restrict__ mu,
                                      const float *__restrict__ scale, const float *__restrict__ tau,
                                      float *__restrict__ loss, int nobs, int nq) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nobs) return;
  const float ys = y[s], m = mu[s], b = scale[s];
  float l = 0.0f;
  for (int q = 0; q < nq; ++q) {
    const float t = tau[q];
    const float r = ys - (m + b * logf(t / (1.0f - t)));
    l += r >= 0.0f ? t * r : (t - 1.0f) * r;
  }
  loss[s] = l / float(nq);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nobs = int(args.get("obs", 1 << 23)), nq = int(args.get("levels", 48));
  if (nobs < 1 || nq < 1) {
    std::fprintf(stderr, "pinball_loss: --obs and --levels must be at least 1\n");
    return 2;
  }
  // Observations and locations in [0, 100), scales 0.5 to 5; levels evenly
  // spaced in (0, 1).
  std::vector<float> y = loops::random_floats(size_t(nobs), 1441u, 0.0f, 100.0f);
  std::vector<float> mu = loops::random_floats(size_t(nobs), 1442u, 0.0f, 100.0f);
  std::vector<float> sc = loops::random_floats(size_t(nobs), 1443u, 0.5f, 5.0f);
  std::vector<float> tau(static_cast<size_t>(nq));
  for (int q = 0; q < nq; ++q) tau[size_t(q)] = float(q + 1) / float(nq + 1);
  float *dy = loops::to_device(y), *dmu = loops::to_device(mu), *dsc = loops::to_device(sc), *dtau = loops::to_device(tau);
  float *dloss = loops::device_zeros<float>(size_t(nobs));
  loops::timed(args, 16.0 * nobs + 4.0 * nq, [&] {
    logistic_pinball_loss<<<(nobs + PB_BLOCK - 1) / PB_BLOCK, PB_BLOCK>>>(dy, dmu, dsc, dtau, dloss, nobs, nq);
  });
  std::vector<float> got = loops::from_device(dloss, size_t(nobs));
  // Non-negative terms: float sums with logf in any order stay within 1e-4
  // (relative, or 1e-4 absolute near 0) of the double reference; every 41st.
  size_t bad = 0;
  for (int s = 0; s < nobs; s += 41) {
    double want = 0;
    for (float t : tau) {
      const double r = double(y[size_t(s)]) - (double(mu[size_t(s)]) + double(sc[size_t(s)]) * std::log(double(t) / (1.0 - double(t))));
      want += r >= 0 ? t * r : (t - 1.0) * r;
    }
    want /= nq;
    if (std::fabs(got[size_t(s)] - want) > 1e-4 * std::max(1.0, std::fabs(want))) ++bad;
  }
  std::printf("pinball_loss: %d observations, %d levels%s\n", nobs, nq, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
