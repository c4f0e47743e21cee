// Held-out case (bench/mapping/heldout19.tsv): every weather station's peak
// gust in the last hour (what an automated surface-observation network
// reports in its hourly summary, one station per thread): station s's
// NSAMPLE FLOAT wind speeds (m/s, one a minute) are stored together
// (row-major, s x NSAMPLE + t), and the thread keeps a FLOAT MAX, from 0, of
// them over a MACRO-BOUNDED loop (t < NSAMPLE); 60 samples. A FLOAT MAX of a
// row-major float. Written for issue 22's nineteenth held-out set, before
// any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef WG_BLOCK
#define WG_BLOCK 128
#endif

#ifndef NSAMPLE
#define NSAMPLE 60
#endif

__global__ void peak_gust_speed(const float *__restrict__ speed, float *__restrict__ gust, int nstation) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nstation) return;
  float m = 0.0f;
  for (int t = 0; t < NSAMPLE; ++t) m = fmaxf(m, speed[size_t(s) * NSAMPLE + t]);
  gust[s] = m;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nstation = int(args.get("stations", 1 << 20));
  if (nstation < 1) {
    std::fprintf(stderr, "wind_gust: --stations must be at least 1\n");
    return 2;
  }
  // Speeds from xorshift64*, two a draw: 0 to 16 m/s from 12 bits each, and
  // a gust of up to 48 m/s when the draw's top 5 bits are 0.
  const size_t ns = size_t(nstation) * NSAMPLE;
  std::vector<float> speed(ns + 2);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1941u;
  for (size_t k = 0; k < ns; k += 2) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    speed[k] = float(h & 0xFFFu) * (1.0f / 256.0f);
    speed[k + 1] = float((h >> 12) & 0xFFFu) * ((h >> 59) == 0u ? 3.0f / 256.0f : 1.0f / 256.0f);
  }
  float *dspeed = loops::to_device(speed);
  float *dgust = loops::device_zeros<float>(size_t(nstation));
  loops::timed(args, 4.0 * double(ns) + 4.0 * nstation, [&] {
    peak_gust_speed<<<(nstation + WG_BLOCK - 1) / WG_BLOCK, WG_BLOCK>>>(dspeed, dgust, nstation);
  });
  std::vector<float> got = loops::from_device(dgust, size_t(nstation));
  // Float maxima: exact; the serial reference checks every 4th station.
  size_t bad = 0, gale = 0;
  for (int s = 0; s < nstation; s += 4) {
    float m = 0.0f;
    for (int t = 0; t < NSAMPLE; ++t) m = std::max(m, speed[size_t(s) * NSAMPLE + size_t(t)]);
    gale += m > 17.0f;
    if (got[size_t(s)] != m) ++bad;
  }
  std::printf("wind_gust: %d stations of %d samples, %zu of the checked above gale%s\n", nstation, NSAMPLE, gale,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
