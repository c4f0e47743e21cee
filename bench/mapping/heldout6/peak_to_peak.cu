// Held-out case (bench/mapping/heldout6.tsv): the peak-to-peak amplitude of
// every series of a time-major recording (sample t of series s at
// x[t * nseries + s], the layout a multichannel acquisition or a per-pixel
// video buffer stores; the range check of a sensor-health or motion-mask
// pass): one thread per series walks its samples with a stride of nseries,
// keeping the largest and the smallest value, and writes their difference.
// Two reductions (a max and a min) over a strided walk, coalesced across
// threads; 24 and 640 steps. Written for issue 22's sixth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef P2P_BLOCK
#define P2P_BLOCK 128
#endif

__global__ void peak_to_peak(const float *x, float *range, int nseries, int steps) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < nseries) {
    float hi = -3.0e38f, lo = 3.0e38f;
    for (int t = 0; t < steps; ++t) {
      float v = x[(size_t)t * nseries + s];
      hi = fmaxf(hi, v);
      lo = fminf(lo, v);
    }
    range[s] = hi - lo;
  }
}

// Samples in [-1, 1) from a 32-bit hash of the index (cheap to draw).
static float hash_sample(unsigned i) {
  i = i * 0x9E3779B9u + 641u;
  i ^= i >> 16;
  i *= 0x7FEB352Du;
  i ^= i >> 15;
  i *= 0x846CA68Bu;
  i ^= i >> 16;
  return float(i >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nseries = int(args.get("series", 1048576)), steps = int(args.get("steps", 32));
  if (nseries < 1 || steps < 1) {
    std::fprintf(stderr, "peak_to_peak: --series and --steps must be at least 1\n");
    return 2;
  }
  const size_t total = size_t(nseries) * steps;
  std::vector<float> x(total);
  for (size_t i = 0; i < total; ++i) x[i] = hash_sample(unsigned(i));
  float *dx = loops::to_device(x), *range = loops::device_zeros<float>(size_t(nseries));
  loops::timed(args, 4.0 * double(total) + 4.0 * nseries, [&] {
    peak_to_peak<<<(nseries + P2P_BLOCK - 1) / P2P_BLOCK, P2P_BLOCK>>>(dx, range, nseries, steps);
  });
  std::vector<float> got = loops::from_device(range, size_t(nseries));
  // A max, a min and one subtraction: exact in any order.
  std::vector<float> hi(size_t(nseries), -3.0e38f), lo(size_t(nseries), 3.0e38f);
  for (int t = 0; t < steps; ++t)
    for (int s = 0; s < nseries; ++s) {
      const float v = x[size_t(t) * nseries + s];
      hi[size_t(s)] = std::max(hi[size_t(s)], v);
      lo[size_t(s)] = std::min(lo[size_t(s)], v);
    }
  size_t bad = 0;
  for (int s = 0; s < nseries; ++s)
    if (got[size_t(s)] != hi[size_t(s)] - lo[size_t(s)]) ++bad;
  std::printf("peak_to_peak: %d series x %d steps%s\n", nseries, steps, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
