// Held-out case (bench/mapping/heldout3.tsv): the energy of many time series
// about their baselines (the detrended-power pass of seismic and sensor
// monitoring codes): the samples are stored time-major, step by step, so one
// thread per series walks down its column with a stride of the series count
// while a warp's threads read consecutive words at every step. Few long
// series (where one thread per series leaves the GPU idle) to many short ones.
// Written for issue 22's third held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef SER_BLOCK
#define SER_BLOCK 256
#endif

__global__ void series_energy(const float *samples, const float *baseline, float *energy, int nseries, int steps) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < nseries) {
    float e = 0.0f;
    for (int t = 0; t < steps; t++) {
      float d = samples[(size_t)t * nseries + s] - baseline[s];
      e += d * d;
    }
    energy[s] = e / steps;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nseries = int(args.get("series", 65536)), steps = int(args.get("steps", 256));
  std::vector<float> samples = loops::random_floats(size_t(nseries) * steps, 341);
  std::vector<float> baseline = loops::random_floats(size_t(nseries), 342, -0.25f, 0.25f);
  float *dsamples = loops::to_device(samples), *dbase = loops::to_device(baseline);
  float *energy = loops::device_zeros<float>(size_t(nseries));
  loops::timed(args, 4.0 * (double(nseries) * steps + 2.0 * nseries), [&] {
    series_energy<<<(nseries + SER_BLOCK - 1) / SER_BLOCK, SER_BLOCK>>>(dsamples, dbase, energy, nseries, steps);
  });
  std::vector<float> got = loops::from_device(energy, size_t(nseries));
  // A mean of squares: non-negative terms, so a relative 1e-4 is far above rounding.
  std::vector<double> want(size_t(nseries), 0.0);
  for (int t = 0; t < steps; ++t)
    for (int s = 0; s < nseries; ++s) {
      double d = double(samples[size_t(t) * nseries + s]) - baseline[size_t(s)];
      want[size_t(s)] += d * d;
    }
  size_t bad = 0;
  for (int s = 0; s < nseries; ++s)
    if (std::fabs(got[size_t(s)] - want[size_t(s)] / steps) > 1e-4 * want[size_t(s)] / steps + 1e-7) ++bad;
  std::printf("series_energy: %d series x %d steps%s\n", nseries, steps, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
