// Held-out case (bench/mapping/heldout11.tsv): the bilateral filter of a
// grey-scale image (the edge-preserving smoothing of the CUDA samples'
// bilateral filter and of GPU denoisers, one output pixel per thread): the
// thread walks the (2R+1) x (2R+1) window around its pixel through one
// flattened loop (row k / side, column k % side, clamped at the borders),
// weights every neighbour by a gathered spatial Gaussian (a table of side *
// side floats) times a range Gaussian of the intensity difference (an
// expf), and divides the weighted sum by the total weight. Two float sums
// over a FIXED-TRIP loop with a 2D index into a float image; radius 2 (25
// trips) and 5 (121 trips). Written for issue 22's eleventh held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef BIL_BLOCK
#define BIL_BLOCK 128
#endif

#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

__global__ void bilateral_pixel(const float *__restrict__ img, const float *__restrict__ spatial,
                                float *__restrict__ out, int width, int height, int radius, float inv_two_sigma_r2) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= width * height) return;
  const int py = p / width, px = p % width;
  const int side = 2 * radius + 1;
  const float centre = img[p];
  float wsum = 0.0f, vsum = 0.0f;
  for (int k = 0; k < side * side; ++k) {
    const int y = CLAMP(py + k / side - radius, 0, height - 1);
    const int x = CLAMP(px + k % side - radius, 0, width - 1);
    const float v = img[y * width + x];
    const float d = v - centre;
    const float w = spatial[k] * expf(-d * d * inv_two_sigma_r2);
    wsum += w;
    vsum += w * v;
  }
  out[p] = vsum / wsum;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int width = int(args.get("width", 2048)), height = int(args.get("height", 2048));
  const int radius = int(args.get("radius", 2));
  if (width < 1 || height < 1 || radius < 1) {
    std::fprintf(stderr, "bilateral: --width, --height and --radius must be at least 1\n");
    return 2;
  }
  const int side = 2 * radius + 1, npix = width * height;
  const float sigma_s = 0.5f * radius + 0.5f, sigma_r = 0.1f;
  std::vector<float> spatial(size_t(side) * side);
  for (int k = 0; k < side * side; ++k) {
    const int dy = k / side - radius, dx = k % side - radius;
    spatial[size_t(k)] = std::exp(-float(dy * dy + dx * dx) / (2.0f * sigma_s * sigma_s));
  }
  // A smooth gradient with a few hard edges (a band pattern) plus hashed
  // noise, in [0, 1).
  std::vector<float> img(static_cast<size_t>(npix));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      unsigned h = unsigned(y * width + x) * 0x9E3779B9u + 1151u;
      h ^= h >> 16;
      h *= 0x7FEB352Du;
      h ^= h >> 15;
      h *= 0x846CA68Bu;
      h ^= h >> 16;
      const float base = 0.3f * float(x) / width + 0.3f * float(((x / 97) + (y / 61)) & 1);
      img[size_t(y) * width + x] = base + 0.3f * float(h >> 8) / 16777216.0f;
    }
  const float inv2r = 1.0f / (2.0f * sigma_r * sigma_r);
  float *dimg = loops::to_device(img), *dsp = loops::to_device(spatial);
  float *dout = loops::device_zeros<float>(size_t(npix));
  loops::timed(args, 8.0 * npix, [&] {
    bilateral_pixel<<<(npix + BIL_BLOCK - 1) / BIL_BLOCK, BIL_BLOCK>>>(dimg, dsp, dout, width, height, radius, inv2r);
  });
  std::vector<float> got = loops::from_device(dout, size_t(npix));
  // The serial reference (double) checks every 97th pixel; all weights are
  // positive, so the ratio of float sums stays within 1e-3 of it.
  size_t bad = 0;
  for (int p = 0; p < npix; p += 97) {
    const int py = p / width, px = p % width;
    const double c = img[size_t(p)];
    double ws = 0, vs = 0;
    for (int k = 0; k < side * side; ++k) {
      const int y = std::min(std::max(py + k / side - radius, 0), height - 1);
      const int x = std::min(std::max(px + k % side - radius, 0), width - 1);
      const double v = img[size_t(y) * width + x];
      const double w = spatial[size_t(k)] * std::exp(-(v - c) * (v - c) * inv2r);
      ws += w;
      vs += w * v;
    }
    if (std::fabs(got[size_t(p)] - vs / ws) > 1e-3) ++bad;
  }
  std::printf("bilateral: %dx%d pixels, radius %d%s\n", width, height, radius,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
