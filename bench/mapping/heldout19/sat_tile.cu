// Held-out case (bench/mapping/heldout19.tsv): which image tiles hold at
// least one clipped pixel (the exposure check a camera pipeline's auto-
// exposure or an HDR merger runs before tone mapping, one tile per thread):
// tile t's NPIX UNSIGNED CHAR luma samples are stored together (row-major,
// t x NPIX + k), and the thread keeps a LOGICAL OR, written `clip |= ...` on
// an int flag, of a sample at or above 250 over a MACRO-BOUNDED loop
// (k < NPIX); 64 samples. A LOGICAL OR of a row-major unsigned char.
// Written for issue 22's nineteenth held-out set, before any tuning on it;
// no weight of the mapping model was tuned on it.
#include <cstring>

#include "loops_harness.cuh"

#ifndef ST_BLOCK
#define ST_BLOCK 128
#endif

#ifndef NPIX
#define NPIX 64
#endif

__global__ void any_clipped_pixel(const unsigned char *__restrict__ luma, int *__restrict__ clipped, int ntile) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= ntile) return;
  int clip = 0;
  for (int k = 0; k < NPIX; ++k) clip |= luma[size_t(t) * NPIX + k] >= 250 ? 1 : 0;
  clipped[t] = clip;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int ntile = int(args.get("tiles", 1 << 21));
  if (ntile < 1) {
    std::fprintf(stderr, "sat_tile: --tiles must be at least 1\n");
    return 2;
  }
  // Luma from xorshift64*, eight samples a draw: 0 to 127 (the low 7 bits
  // of each byte), except that one draw in 64 has one sample set to 255.
  const size_t ns = size_t(ntile) * NPIX;
  std::vector<unsigned char> luma(ns + 8);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1961u;
  for (size_t k = 0; k < ns; k += 8) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    unsigned long long w = h & 0x7F7F7F7F7F7F7F7Full;
    if ((h >> 58) == 0u) w |= 0xFFull << (8 * ((h >> 40) & 7u));
    std::memcpy(luma.data() + k, &w, 8);
  }
  unsigned char *dluma = loops::to_device(luma);
  int *dclip = loops::device_zeros<int>(size_t(ntile));
  loops::timed(args, double(ns) + 4.0 * ntile, [&] {
    any_clipped_pixel<<<(ntile + ST_BLOCK - 1) / ST_BLOCK, ST_BLOCK>>>(dluma, dclip, ntile);
  });
  std::vector<int> got = loops::from_device(dclip, size_t(ntile));
  // Integer flags: exact; the serial reference checks every 4th tile.
  size_t bad = 0, hits = 0;
  for (int t = 0; t < ntile; t += 4) {
    int clip = 0;
    for (int k = 0; k < NPIX; ++k) clip |= luma[size_t(t) * NPIX + size_t(k)] >= 250 ? 1 : 0;
    hits += size_t(clip);
    if (got[size_t(t)] != clip) ++bad;
  }
  std::printf("sat_tile: %d tiles of %d samples, %zu of the checked clipped%s\n", ntile, NPIX, hits,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
