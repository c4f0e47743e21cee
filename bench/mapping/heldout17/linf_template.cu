// Held-out case (bench/mapping/heldout17.tsv): every image patch's
// Chebyshev (L-infinity) distance to a reference template (the tolerance
// test of an automated optical inspection line or a defect screen, which
// fails a patch when any one pixel strays too far, one patch per thread):
// patch i's npix float intensities are stored together (row-major, i x npix
// + p), the template is npix floats every thread reads in the same order,
// and the thread keeps a FLOAT MAX, from 0, of the absolute difference over
// a PARAMETER-TRIP loop (p < npix); 16 and 1024 pixels. Written for issue
// 22's seventeenth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef LT_BLOCK
#define LT_BLOCK 128
#endif

__global__ void linf_to_template(const float *__restrict__ patch, const float *__restrict__ tmpl,
                                 float *__restrict__ dist, int npatch, int npix) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npatch) return;
  float d = 0.0f;
  for (int p = 0; p < npix; ++p) d = fmaxf(d, fabsf(patch[size_t(i) * npix + p] - tmpl[p]));
  dist[i] = d;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int npatch = int(args.get("patches", 1 << 20)), npix = int(args.get("pixels", 16));
  if (npatch < 1 || npix < 1) {
    std::fprintf(stderr, "linf_template: --patches and --pixels must be at least 1\n");
    return 2;
  }
  // The template 0.2 to 0.8 (mt19937); patches the template plus noise of
  // -0.05 to 0.05 from xorshift64*, and one patch in five a defect of
  // +0.3 at a hashed pixel.
  std::vector<float> tmpl = loops::random_floats(size_t(npix), 1731u, 0.2f, 0.8f);
  const size_t np = size_t(npatch) * size_t(npix);
  std::vector<float> patch(np);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1732u;
  for (size_t i = 0; i < np; i += size_t(npix))
    for (int p = 0; p < npix; p += 2) {  // two 24-bit draws a step
      z ^= z << 13;
      z ^= z >> 7;
      z ^= z << 17;
      const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
      patch[i + size_t(p)] = tmpl[size_t(p)] + (float(h >> 40) * (1.0f / 16777216.0f) - 0.5f) * 0.1f;
      if (p + 1 < npix)
        patch[i + size_t(p) + 1] =
            tmpl[size_t(p) + 1] + (float((h >> 16) & 0xFFFFFFull) * (1.0f / 16777216.0f) - 0.5f) * 0.1f;
    }
  for (int i = 0; i < npatch; i += 5) {
    unsigned h = unsigned(i) * 0x9E3779B9u + 1733u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    patch[size_t(i) * size_t(npix) + h % unsigned(npix)] += 0.3f;
  }
  float *dpatch = loops::to_device(patch), *dtmpl = loops::to_device(tmpl);
  float *ddist = loops::device_zeros<float>(size_t(npatch));
  loops::timed(args, 4.0 * double(np) + 4.0 * npatch, [&] {
    linf_to_template<<<(npatch + LT_BLOCK - 1) / LT_BLOCK, LT_BLOCK>>>(dpatch, dtmpl, ddist, npatch, npix);
  });
  std::vector<float> got = loops::from_device(ddist, size_t(npatch));
  // A max of the same float differences: exact in any order; the serial
  // reference checks every 4th patch.
  size_t bad = 0, fail = 0;
  for (int i = 0; i < npatch; i += 4) {
    float d = 0.0f;
    for (int p = 0; p < npix; ++p)
      d = std::max(d, std::fabs(patch[size_t(i) * size_t(npix) + size_t(p)] - tmpl[size_t(p)]));
    fail += d > 0.1f;
    if (got[size_t(i)] != d) ++bad;
  }
  std::printf("linf_template: %d patches of %d pixels, %zu of the checked out of tolerance%s\n", npatch, npix, fail,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
