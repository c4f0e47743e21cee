// Held-out case (bench/mapping/heldout14.tsv): the lowest reading of every
// frame of a sensor array and how many of its sensors read below a floor
// (the dropout check a data-acquisition pipeline runs on every frame, one
// frame per thread): a frame is a record of NSENS signed 16-bit readings
// stored together (array of structs: frame f's sensor k at f x NSENS + k),
// and the thread takes the MIN of its NSENS readings and COUNTS those below
// the floor. A SHORT min and a count over a MACRO-BOUNDED loop of
// array-of-structs readings; 16 and 64 sensors. Written for issue 22's
// fourteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef SF_BLOCK
#define SF_BLOCK 256
#endif

#ifndef NSENS
#define NSENS 16
#endif

__global__ void frame_floor(const short *__restrict__ reading, short floor_level, int *__restrict__ lowest,
                            int *__restrict__ below, int nframes) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nframes) return;
  int lo = 32767, nb = 0;
  for (int k = 0; k < NSENS; ++k) {
    const int r = reading[size_t(f) * NSENS + k];
    lo = min(lo, r);
    nb += r < floor_level ? 1 : 0;
  }
  lowest[f] = lo;
  below[f] = nb;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nframes = int(args.get("frames", 1 << 23));
  if (nframes < 1) {
    std::fprintf(stderr, "sensor_floor: --frames must be at least 1\n");
    return 2;
  }
  // Readings from xorshift64* (four 16-bit draws per step): mostly in
  // [-4096, 4096), one in 64 a deep dropout below -20000.
  const size_t nr = size_t(nframes) * NSENS;
  std::vector<short> reading(nr);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1451u;
  for (size_t i = 0; i < nr; i += 4) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    for (size_t j = 0; j < 4 && i + j < nr; ++j) {
      const unsigned w = unsigned(h >> (16 * j)) & 0xFFFFu;
      reading[i + j] = (w >> 10) == 0u ? short(-20000 - int(w & 1023u)) : short(int(w & 8191u) - 4096);
    }
  }
  const short floor_level = -3500;
  short *dr = loops::to_device(reading);
  int *dlo = loops::device_zeros<int>(size_t(nframes)), *dnb = loops::device_zeros<int>(size_t(nframes));
  loops::timed(args, 2.0 * double(nr) + 8.0 * nframes, [&] {
    frame_floor<<<(nframes + SF_BLOCK - 1) / SF_BLOCK, SF_BLOCK>>>(dr, floor_level, dlo, dnb, nframes);
  });
  std::vector<int> got_lo = loops::from_device(dlo, size_t(nframes)), got_nb = loops::from_device(dnb, size_t(nframes));
  // Integer results, exact; the serial reference checks every 7th frame.
  size_t bad = 0;
  for (int f = 0; f < nframes; f += 7) {
    int lo = 32767, nb = 0;
    for (int k = 0; k < NSENS; ++k) {
      const int r = reading[size_t(f) * NSENS + size_t(k)];
      lo = std::min(lo, r);
      nb += r < floor_level;
    }
    if (got_lo[size_t(f)] != lo || got_nb[size_t(f)] != nb) ++bad;
  }
  std::printf("sensor_floor: %d frames of %d sensors%s\n", nframes, NSENS, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got_lo);
  res.add(got_nb);
  return bad ? 1 : 0;
}
