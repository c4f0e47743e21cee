// Held-out case (bench/mapping/heldout15.tsv): the mean power of every epoch
// of a multichannel recording after removing its DC offset (the artefact
// screen an EEG or vibration-monitoring pipeline runs on every epoch, one
// epoch per thread): an epoch is a record of NSAMP HALF-precision samples
// stored together (array of structs: epoch e's sample k at e x NSAMP + k),
// its DC offset a float given per epoch, and the thread sums the squared
// offset-free samples in float and divides by NSAMP. A FLOAT SUM of squares
// of __half samples converted in the loop, over a MACRO-BOUNDED loop; 32 and
// 128 samples. Written for issue 22's fifteenth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
#include <cuda_fp16.h>

#include "loops_harness.cuh"

#ifndef EP_BLOCK
#define EP_BLOCK 256
#endif

#ifndef NSAMP
#define NSAMP 32
#endif

__global__ void epoch_mean_power(const __half *__restrict__ sample, const float *__restrict__ dc,
                                 float *__restrict__ power, int nepochs) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= nepochs) return;
  const float off = dc[e];
  float p = 0.0f;
  for (int k = 0; k < NSAMP; ++k) {
    const float v = __half2float(sample[size_t(e) * NSAMP + k]) - off;
    p += v * v;
  }
  power[e] = p / float(NSAMP);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nepochs = int(args.get("epochs", 6291456));
  if (nepochs < 1) {
    std::fprintf(stderr, "epoch_power: --epochs must be at least 1\n");
    return 2;
  }
  // Samples in [-4, 4) on a 1/64 grid (exact in half) from xorshift64* (four
  // 9-bit draws a step, turned into halves through a table of the 512
  // values); DC offsets in [-1, 1) on a 1/64 grid.
  const size_t ns = size_t(nepochs) * NSAMP;
  std::vector<__half> sample(ns), level(512);
  for (int w = 0; w < 512; ++w) level[size_t(w)] = __float2half(float(w - 256) / 64.0f);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1561u;
  for (size_t i = 0; i < ns; i += 4) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    for (size_t j = 0; j < 4 && i + j < ns; ++j) sample[i + j] = level[unsigned(h >> (16 * j)) & 511u];
  }
  std::vector<float> dc = loops::random_floats(size_t(nepochs), 1562u, -1.0f, 1.0f);
  for (float &d : dc) d = std::floor(d * 64.0f) / 64.0f;
  __half *dsample = loops::to_device(sample);
  float *ddc = loops::to_device(dc);
  float *dpower = loops::device_zeros<float>(size_t(nepochs));
  loops::timed(args, 2.0 * double(ns) + 8.0 * nepochs, [&] {
    epoch_mean_power<<<(nepochs + EP_BLOCK - 1) / EP_BLOCK, EP_BLOCK>>>(dsample, ddc, dpower, nepochs);
  });
  std::vector<float> got = loops::from_device(dpower, size_t(nepochs));
  // Offset-free samples on a 1/64 grid below 5 in magnitude: squares on a
  // 1/4096 grid below 25, sums of up to 128 of them (below 2^24 grid steps)
  // exact in float, in any order; the serial reference checks every 5th epoch.
  size_t bad = 0;
  for (int e = 0; e < nepochs; e += 5) {
    double p = 0;
    for (int k = 0; k < NSAMP; ++k) {
      const double v = double(__half2float(sample[size_t(e) * NSAMP + size_t(k)])) - double(dc[size_t(e)]);
      p += v * v;
    }
    p /= NSAMP;
    if (std::fabs(got[size_t(e)] - p) > 1e-6 * std::max(1.0, p)) ++bad;
  }
  std::printf("epoch_power: %d epochs of %d samples%s\n", nepochs, NSAMP,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
