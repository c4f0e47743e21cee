// Held-out case (bench/mapping/heldout16.tsv): the strongest bin of every
// short-time spectrum (the peak picking a pitch tracker, a radar's range
// gate or a vibration monitor runs on every frame, one frame per thread):
// frame f's NBIN float magnitudes are stored together (row-major, f x NBIN +
// b), and the thread keeps the ARGMAX, folded as an UNSIGNED LONG LONG MAX
// of keys packing the magnitude's bits (non-negative floats order as their
// bits) above the inverted bin number (ties to the lower bin), over a
// PARAMETER-TRIP loop (b < nbin); 64 and 512 bins. Written for issue 22's
// sixteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef SP_BLOCK
#define SP_BLOCK 128
#endif

__global__ void strongest_bin(const float *__restrict__ mag, int *__restrict__ peak, int nframes, int nbin) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nframes) return;
  unsigned long long best = 0ull;
  for (int b = 0; b < nbin; ++b)
    best = max(best, (unsigned long long)__float_as_uint(mag[size_t(f) * nbin + b]) << 32 | unsigned(~b));
  peak[f] = int(~unsigned(best));
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nframes = int(args.get("frames", 1 << 20)), nbin = int(args.get("bins", 64));
  if (nframes < 1 || nbin < 1) {
    std::fprintf(stderr, "spectrum_peak: --frames and --bins must be at least 1\n");
    return 2;
  }
  // Magnitudes from xorshift64*: a noise floor of 0 to 1 and, in one frame
  // in three, a tone of 4 to 8 at a hashed bin.
  const size_t nm = size_t(nframes) * size_t(nbin);
  std::vector<float> mag(nm);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1621u;
  for (size_t i = 0; i < nm; ++i) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    mag[i] = float((z * 0x2545F4914F6CDD1Dull) >> 40) * (1.0f / 16777216.0f);
  }
  for (int f = 0; f < nframes; f += 3) {
    unsigned h = unsigned(f) * 0x9E3779B9u + 1622u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    mag[size_t(f) * size_t(nbin) + h % unsigned(nbin)] = 4.0f + float(h >> 28) * 0.25f;
  }
  float *dmag = loops::to_device(mag);
  int *dpeak = loops::device_zeros<int>(size_t(nframes));
  loops::timed(args, 4.0 * double(nm) + 4.0 * nframes, [&] {
    strongest_bin<<<(nframes + SP_BLOCK - 1) / SP_BLOCK, SP_BLOCK>>>(dmag, dpeak, nframes, nbin);
  });
  std::vector<int> got = loops::from_device(dpeak, size_t(nframes));
  // An index, exact; the serial reference checks every 3rd frame.
  size_t bad = 0;
  for (int f = 0; f < nframes; f += 3) {
    int arg = 0;
    for (int b = 1; b < nbin; ++b)
      if (mag[size_t(f) * size_t(nbin) + size_t(b)] > mag[size_t(f) * size_t(nbin) + size_t(arg)]) arg = b;
    if (got[size_t(f)] != arg) ++bad;
  }
  std::printf("spectrum_peak: %d frames of %d bins%s\n", nframes, nbin, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
