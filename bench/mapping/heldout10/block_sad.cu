// Held-out case (bench/mapping/heldout10.tsv): full-search block matching of
// a video encoder's motion estimation (the sum of absolute differences of
// every candidate displacement, as the SAD kernels of x264-style GPU
// encoders and the classic CUDA motion-estimation samples compute it, one
// candidate per thread): thread (macroblock, dy, dx) walks the BS x BS
// pixels of its macroblock in the current frame, row by row through one
// flattened loop, and sums |cur - ref| against the reference frame moved by
// (dy, dx). An integer sum over a fixed-trip loop of 8-bit pixels read
// through a 2D index (row k / BS, column k % BS of a frame of W bytes a row);
// 8 x 8 (64 trips) and 32 x 32 (1024 trips) blocks. Written for issue 22's
// tenth held-out set, before any tuning on it; no weight of the mapping model
// was tuned on it.
#include "loops_harness.cuh"

#ifndef SAD_BLOCK
#define SAD_BLOCK 128
#endif

__global__ void block_sad(const unsigned char *__restrict__ cur, const unsigned char *__restrict__ ref,
                          int *__restrict__ sad, int width, int mbs_x, int nmbs, int bs, int range) {
  const int side = 2 * range + 1;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nmbs * side * side) return;
  const int mb = t / (side * side), cand = t % (side * side);
  const int dy = cand / side - range, dx = cand % side - range;
  const int y0 = range + (mb / mbs_x) * bs, x0 = range + (mb % mbs_x) * bs;
  int s = 0;
  for (int k = 0; k < bs * bs; ++k) {
    const int y = y0 + k / bs, x = x0 + k % bs;
    s += abs(int(cur[y * width + x]) - int(ref[(y + dy) * width + x + dx]));
  }
  sad[t] = s;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int mbs_x = int(args.get("mbs-x", 240)), mbs_y = int(args.get("mbs-y", 136));
  const int bs = int(args.get("bs", 8)), range = int(args.get("range", 4));
  if (mbs_x < 1 || mbs_y < 1 || bs < 1) {
    std::fprintf(stderr, "block_sad: --mbs-x, --mbs-y and --bs must be at least 1\n");
    return 2;
  }
  // Frames padded by `range` pixels on every side; the reference is the
  // current frame shifted by (1, 2) pixels plus noise, both from 32-bit hashes.
  const int width = mbs_x * bs + 2 * range, height = mbs_y * bs + 2 * range;
  const int side = 2 * range + 1, nmbs = mbs_x * mbs_y, threads = nmbs * side * side;
  std::vector<unsigned char> cur(size_t(width) * height), ref(size_t(width) * height);
  auto mix = [](unsigned h) {
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
  };
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const unsigned h = mix(unsigned(y * width + x) * 0x9E3779B9u + 1031u);
      cur[size_t(y) * width + x] = (unsigned char)((x * 3 + y * 5) / 4 % 200 + (h & 31u));
    }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const int sy = std::min(height - 1, y + 1), sx = std::min(width - 1, x + 2);
      const unsigned h = mix(unsigned(y * width + x) * 0x85EBCA6Bu + 1032u);
      ref[size_t(y) * width + x] = (unsigned char)std::min(255u, cur[size_t(sy) * width + sx] + (h & 7u));
    }
  unsigned char *dcur = loops::to_device(cur), *dref = loops::to_device(ref);
  int *dsad = loops::device_zeros<int>(size_t(threads));
  loops::timed(args, 2.0 * double(threads) * bs * bs / (side * side) + 4.0 * threads, [&] {
    block_sad<<<(threads + SAD_BLOCK - 1) / SAD_BLOCK, SAD_BLOCK>>>(dcur, dref, dsad, width, mbs_x, nmbs, bs, range);
  });
  std::vector<int> got = loops::from_device(dsad, size_t(threads));
  // The serial reference checks every 61st candidate (the sums are exact).
  size_t bad = 0;
  for (int t = 0; t < threads; t += 61) {
    const int mb = t / (side * side), cand = t % (side * side);
    const int dy = cand / side - range, dx = cand % side - range;
    const int y0 = range + (mb / mbs_x) * bs, x0 = range + (mb % mbs_x) * bs;
    int s = 0;
    for (int y = y0; y < y0 + bs; ++y)
      for (int x = x0; x < x0 + bs; ++x)
        s += std::abs(int(cur[size_t(y) * width + x]) - int(ref[size_t(y + dy) * width + x + dx]));
    if (got[size_t(t)] != s) ++bad;
  }
  std::printf("block_sad: %d macroblocks of %dx%d, %d candidates each%s\n", nmbs, bs, bs, side * side,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
