// Held-out case (bench/mapping/heldout6.tsv): the zero-crossing count of every
// analysis frame of a signal (the zero-crossing-rate feature of speech and
// music front ends: frames of len samples, a hop of len / 2, so neighbouring
// frames overlap by half): one thread per frame counts the sign changes
// between consecutive samples of its frame (every sample read twice, by
// iterations i - 1 and i). An integer count over a dense fixed-trip loop, each
// thread on its own contiguous frame, neighbouring threads a hop apart; 64
// samples. Written for issue 22's sixth held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef ZCR_BLOCK
#define ZCR_BLOCK 128
#endif

__global__ void zero_crossings(const float *x, int *zc, int frames, int len, int hop) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f < frames) {
    size_t base = (size_t)f * hop;
    int c = 0;
    for (int i = 0; i < len; ++i) c += (x[base + i] >= 0.0f) != (x[base + i + 1] >= 0.0f) ? 1 : 0;
    zc[f] = c;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int frames = int(args.get("frames", 262144)), len = int(args.get("len", 64));
  if (frames < 1 || len < 2) {
    std::fprintf(stderr, "zero_cross: --frames must be at least 1, --len at least 2\n");
    return 2;
  }
  const int hop = len / 2;
  const size_t samples = size_t(frames - 1) * hop + size_t(len) + 1;
  // A slow oscillation plus hashed noise, so frames differ in their counts.
  std::vector<float> x(samples);
  for (size_t i = 0; i < samples; ++i) {
    unsigned h = unsigned(i) * 0x9E3779B9u + 661u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    const float noise = float(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
    const float phase = float(i % 97u) * (1.0f / 97.0f);
    x[i] = (phase < 0.5f ? 0.6f : -0.6f) + noise * (0.3f + 0.5f * float((i / 4096u) % 3u));
  }
  float *dx = loops::to_device(x);
  int *zc = loops::device_zeros<int>(size_t(frames));
  loops::timed(args, 4.0 * double(samples) + 4.0 * frames, [&] {
    zero_crossings<<<(frames + ZCR_BLOCK - 1) / ZCR_BLOCK, ZCR_BLOCK>>>(dx, zc, frames, len, hop);
  });
  std::vector<int> got = loops::from_device(zc, size_t(frames));
  size_t bad = 0;
  for (int f = 0; f < frames; ++f) {
    int c = 0;
    for (int i = 0; i < len; ++i) {
      const size_t at = size_t(f) * hop + size_t(i);
      c += (x[at] >= 0.0f) != (x[at + 1] >= 0.0f);
    }
    if (got[size_t(f)] != c) ++bad;
  }
  std::printf("zero_cross: %d frames of %d (hop %d)%s\n", frames, len, hop, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
