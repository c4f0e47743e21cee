// Held-out case (bench/mapping/heldout4.tsv): a box blur of a greyscale image
// (the smoothing step of an image pipeline, as the cuda-samples' box filter
// and Rodinia-style stencils write it naively): one thread per pixel averages
// the (2R+1) x (2R+1) window around it, clamping at the borders. Two nested
// loops of a small fixed trip count (radius 2 and 4).
// Written for issue 22's fourth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef BLUR_RADIUS
#define BLUR_RADIUS 2
#endif
#ifndef BLUR_BLOCK
#define BLUR_BLOCK 256
#endif

__global__ void box_blur(const float *img, float *out, int width, int height) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < width * height) {
    int x = p % width, y = p / width;
    float s = 0.0f;
    for (int dy = -BLUR_RADIUS; dy <= BLUR_RADIUS; ++dy) {
      int yy = min(max(y + dy, 0), height - 1);
      for (int dx = -BLUR_RADIUS; dx <= BLUR_RADIUS; ++dx) {
        int xx = min(max(x + dx, 0), width - 1);
        s += img[(size_t)yy * width + xx];
      }
    }
    out[p] = s * (1.0f / ((2 * BLUR_RADIUS + 1) * (2 * BLUR_RADIUS + 1)));
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int width = int(args.get("width", 2048)), height = int(args.get("height", 2048));
  if (width < 1 || height < 1 || long(width) * height > (1L << 30)) {
    std::fprintf(stderr, "box_blur: --width and --height must be at least 1, at most 2^30 pixels\n");
    return 2;
  }
  const size_t n = size_t(width) * height;
  std::vector<float> img = loops::random_floats(n, 421, 0.f, 1.f);
  float *dimg = loops::to_device(img), *out = loops::device_zeros<float>(n);
  loops::timed(args, 8.0 * double(n), [&] {
    box_blur<<<int((n + BLUR_BLOCK - 1) / BLUR_BLOCK), BLUR_BLOCK>>>(dimg, out, width, height);
  });
  std::vector<float> got = loops::from_device(out, n);
  // A mean of at most 81 values in [0, 1): 1e-5 absolute is far above the
  // rounding of any order of the sum.
  size_t bad = 0;
  const int R = BLUR_RADIUS;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double s = 0;
      for (int dy = -R; dy <= R; ++dy)
        for (int dx = -R; dx <= R; ++dx) {
          int yy = std::min(std::max(y + dy, 0), height - 1), xx = std::min(std::max(x + dx, 0), width - 1);
          s += img[size_t(yy) * width + xx];
        }
      if (std::fabs(got[size_t(y) * width + x] - s / ((2 * R + 1) * (2 * R + 1))) > 1e-5) ++bad;
    }
  std::printf("box_blur: %d x %d, radius %d%s\n", width, height, R, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
