// Held-out case (bench/mapping/heldout20.tsv): every rain gauge's storm total
// in millimetres (what a flood-warning network's hydrology step sums from
// tipping-bucket counts, one gauge per thread): gauge g's NSTEP UNSIGNED
// SHORT tip counts, one per interval, are stored together (row-major,
// g x NSTEP + t), the bucket's millimetres per tip is a kernel argument, and
// the thread SUMS, in float, the tips times it over a MACRO-BOUNDED loop
// (t < NSTEP); 32 intervals. A FLOAT SUM of a row-major unsigned short
// times a scalar. Written for issue 22's twentieth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
#include <cstring>

#include "loops_harness.cuh"

#ifndef RG_BLOCK
#define RG_BLOCK 128
#endif

#ifndef NSTEP
#define NSTEP 32
#endif

__global__ void storm_rainfall(const unsigned short *__restrict__ tips, float *__restrict__ mm, int ngauge,
                               float mm_per_tip) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= ngauge) return;
  float s = 0.0f;
  for (int t = 0; t < NSTEP; ++t) s += float(tips[size_t(g) * NSTEP + t]) * mm_per_tip;
  mm[g] = s;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int ngauge = int(args.get("gauges", 3 << 20));
  const float mm_per_tip = 0.25f;
  if (ngauge < 1) {
    std::fprintf(stderr, "rain_gauge: --gauges must be at least 1\n");
    return 2;
  }
  // Tip counts from xorshift64*, four 16-bit counts a draw, each the low 6
  // bits (0 to 63 tips an interval); with 0.25 mm a tip every partial sum is
  // exact in float.
  const size_t ns = size_t(ngauge) * NSTEP;
  std::vector<unsigned short> tips(ns + 4);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 2071u;
  for (size_t k = 0; k < ns; k += 4) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long w = (z * 0x2545F4914F6CDD1Dull) & 0x003F003F003F003Full;
    std::memcpy(tips.data() + k, &w, 8);
  }
  unsigned short *dtips = loops::to_device(tips);
  float *dmm = loops::device_zeros<float>(size_t(ngauge));
  loops::timed(args, 2.0 * double(ns) + 4.0 * ngauge, [&] {
    storm_rainfall<<<(ngauge + RG_BLOCK - 1) / RG_BLOCK, RG_BLOCK>>>(dtips, dmm, ngauge, mm_per_tip);
  });
  std::vector<float> got = loops::from_device(dmm, size_t(ngauge));
  // Sums of quarter millimetres: exact in float in any order; a relative
  // tolerance all the same. The serial reference checks every 4th gauge.
  size_t bad = 0;
  double total = 0.0;
  for (int g = 0; g < ngauge; g += 4) {
    double s = 0.0;
    for (int t = 0; t < NSTEP; ++t) s += double(tips[size_t(g) * NSTEP + size_t(t)]) * mm_per_tip;
    total += s;
    if (std::fabs(double(got[size_t(g)]) - s) > 1e-5 * (s + 1.0)) ++bad;
  }
  std::printf("rain_gauge: %d gauges of %d intervals, %.1f mm in the checked%s\n", ngauge, NSTEP, total,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
