// Held-out case (bench/mapping/heldout17.tsv): every GPS track's travelled
// length (the odometer a fleet-telematics or a fitness-tracking backend
// derives from the fixes of each trip, one track per thread): track t's
// NSEG + 1 fixes are float2 (x, y) metres stored together (row-major, t x
// (NSEG + 1) + j), and the thread sums, as a DOUBLE, the Euclidean length of
// every segment between consecutive fixes (a sqrt per segment) over a
// MACRO-BOUNDED loop (j < NSEG); 24 segments. Written for issue 22's
// seventeenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef TL_BLOCK
#define TL_BLOCK 128
#endif

#ifndef NSEG
#define NSEG 24
#endif

__global__ void gps_track_length(const float2 *__restrict__ fix, float *__restrict__ len, int ntrack) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= ntrack) return;
  const float2 *f = fix + size_t(t) * (NSEG + 1);
  double s = 0.0;
  for (int j = 0; j < NSEG; ++j) {
    const double dx = double(f[j + 1].x - f[j].x), dy = double(f[j + 1].y - f[j].y);
    s += sqrt(dx * dx + dy * dy);
  }
  len[t] = float(s);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int ntrack = int(args.get("tracks", 1 << 21));
  if (ntrack < 1) {
    std::fprintf(stderr, "track_length: --tracks must be at least 1\n");
    return 2;
  }
  // Random walks from xorshift64*: a start in a 50 km square, then steps of
  // up to 40 m in each coordinate between fixes.
  const size_t nf = size_t(ntrack) * (NSEG + 1);
  std::vector<float2> fix(nf);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1741u;
  auto draw = [&z]() {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    return z * 0x2545F4914F6CDD1Dull;
  };
  for (int t = 0; t < ntrack; ++t) {
    unsigned long long h = draw();
    float x = float(h >> 40) * (50000.0f / 16777216.0f), y = float((h >> 16) & 0xFFFFFFull) * (50000.0f / 16777216.0f);
    for (int j = 0; j <= NSEG; ++j) {
      fix[size_t(t) * (NSEG + 1) + size_t(j)] = make_float2(x, y);
      h = draw();
      x += float(int(h >> 56) - 128) * (40.0f / 128.0f);
      y += float(int((h >> 48) & 0xFFull) - 128) * (40.0f / 128.0f);
    }
  }
  float2 *dfix = loops::to_device(fix);
  float *dlen = loops::device_zeros<float>(size_t(ntrack));
  loops::timed(args, 8.0 * double(nf) + 4.0 * ntrack, [&] {
    gps_track_length<<<(ntrack + TL_BLOCK - 1) / TL_BLOCK, TL_BLOCK>>>(dfix, dlen, ntrack);
  });
  std::vector<float> got = loops::from_device(dlen, size_t(ntrack));
  // Double sums of positive lengths rounded to float: compared with a
  // relative tolerance; the serial reference checks every 8th track.
  size_t bad = 0;
  double total = 0.0;
  for (int t = 0; t < ntrack; t += 8) {
    const float2 *f = fix.data() + size_t(t) * (NSEG + 1);
    double s = 0.0;
    for (int j = 0; j < NSEG; ++j) {
      const double dx = double(f[j + 1].x - f[j].x), dy = double(f[j + 1].y - f[j].y);
      s += std::sqrt(dx * dx + dy * dy);
    }
    total += s;
    if (std::fabs(double(got[size_t(t)]) - s) > 1e-5 * (s + 1.0)) ++bad;
  }
  std::printf("track_length: %d tracks of %d segments, %.0f km checked%s\n", ntrack, NSEG, total / 1000.0,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
