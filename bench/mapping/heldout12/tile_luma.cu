// Held-out case (bench/mapping/heldout12.tsv): the peak luma and the count of
// clipped pixels of every tile of an 8-bit RGB frame (the statistics pass of
// a local tone mapper or an auto-exposure loop, one tile per thread): the
// frame is stored tile by tile, TILE_PIX pixels of three bytes each (an array
// of structs), and the thread computes each pixel's BT.601 luma from its r, g
// and b fields, keeping the maximum and counting the pixels at 250 or above.
// An integer max and count over a MACRO-BOUNDED loop over a contiguous row of
// 3-byte structs read by field; 64 and 256 pixels a tile. Written for issue
// 22's twelfth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef TL_BLOCK
#define TL_BLOCK 256
#endif

#ifndef TILE_PIX
#define TILE_PIX 64
#endif

struct Rgb8 {
  unsigned char r, g, b;
};

__global__ void tile_peak_luma(const Rgb8 *__restrict__ frame, int *__restrict__ peak, int *__restrict__ clipped,
                               int ntiles) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= ntiles) return;
  const Rgb8 *px = frame + size_t(t) * TILE_PIX;
  int hi = 0, nclip = 0;
  for (int k = 0; k < TILE_PIX; ++k) {
    const int y = (77 * px[k].r + 150 * px[k].g + 29 * px[k].b) >> 8;
    hi = max(hi, y);
    nclip += y >= 250 ? 1 : 0;
  }
  peak[t] = hi;
  clipped[t] = nclip;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int ntiles = int(args.get("tiles", 1 << 20));
  if (ntiles < 1) {
    std::fprintf(stderr, "tile_luma: --tiles must be at least 1\n");
    return 2;
  }
  auto mix = [](unsigned h) {
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
  };
  // A mostly mid-grey frame with bright tiles: a tile's brightness is drawn
  // once, each pixel's channels around it (some clip at 255).
  const size_t npix = size_t(ntiles) * TILE_PIX;
  std::vector<Rgb8> frame(npix);
  for (int t = 0; t < ntiles; ++t) {
    const unsigned base = 40u + mix(unsigned(t) * 0x85EBCA6Bu + 1251u) % 200u;
    for (int k = 0; k < TILE_PIX; ++k) {
      const unsigned h = mix(unsigned(size_t(t) * TILE_PIX + size_t(k)) * 0x9E3779B9u + 1252u);
      Rgb8 &p = frame[size_t(t) * TILE_PIX + size_t(k)];
      p.r = (unsigned char)std::min(255u, base + (h & 63u));
      p.g = (unsigned char)std::min(255u, base + (h >> 6 & 63u));
      p.b = (unsigned char)std::min(255u, base + (h >> 12 & 63u));
    }
  }
  Rgb8 *dframe = loops::to_device(frame);
  int *peak = loops::device_zeros<int>(size_t(ntiles)), *clipped = loops::device_zeros<int>(size_t(ntiles));
  loops::timed(args, 3.0 * double(npix) + 8.0 * ntiles, [&] {
    tile_peak_luma<<<(ntiles + TL_BLOCK - 1) / TL_BLOCK, TL_BLOCK>>>(dframe, peak, clipped, ntiles);
  });
  std::vector<int> got_peak = loops::from_device(peak, size_t(ntiles));
  std::vector<int> got_clip = loops::from_device(clipped, size_t(ntiles));
  // Integer results, exact; the serial reference checks every 11th tile.
  size_t bad = 0, total_clipped = 0;
  for (int t = 0; t < ntiles; t += 11) {
    int hi = 0, nclip = 0;
    for (int k = 0; k < TILE_PIX; ++k) {
      const Rgb8 &p = frame[size_t(t) * TILE_PIX + size_t(k)];
      const int y = (77 * p.r + 150 * p.g + 29 * p.b) >> 8;
      hi = std::max(hi, y);
      nclip += y >= 250;
    }
    total_clipped += size_t(nclip);
    if (got_peak[size_t(t)] != hi || got_clip[size_t(t)] != nclip) ++bad;
  }
  std::printf("tile_luma: %d tiles of %d pixels, %zu clipped in the checked tiles%s\n", ntiles, TILE_PIX, total_clipped,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got_peak);
  res.add(got_clip);
  return bad ? 1 : 0;
}
