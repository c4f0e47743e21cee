// Held-out case (bench/mapping/heldout20.tsv): which drone flights stayed
// under the altitude ceiling at every fix (the compliance check a UAS
// traffic-management service runs over a day's flight logs, one flight per
// thread): flight d's NFIX signed SHORT altitudes (metres above ground) are
// stored together (row-major, d x NFIX + t), and the thread keeps a LOGICAL
// AND, written `ok &= ...` on an int flag, of every altitude being at or below
// the ceiling (a kernel argument) over a MACRO-BOUNDED loop (t < NFIX); 72
// fixes. A LOGICAL AND of a row-major short compare. Written for issue 22's
// twentieth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include <cstring>

#include "loops_harness.cuh"

#ifndef DA_BLOCK
#define DA_BLOCK 128
#endif

#ifndef NFIX
#define NFIX 72
#endif

__global__ void all_below_ceiling(const short *__restrict__ alt, int *__restrict__ compliant, int nflight,
                                  int ceiling) {
  const int d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d >= nflight) return;
  int ok = 1;
  for (int t = 0; t < NFIX; ++t) ok &= int(alt[size_t(d) * NFIX + t]) <= ceiling;
  compliant[d] = ok;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nflight = int(args.get("flights", 1 << 20));
  const int ceiling = 126;
  if (nflight < 1) {
    std::fprintf(stderr, "drone_alt: --flights must be at least 1\n");
    return 2;
  }
  // Altitudes from xorshift64*, four 16-bit values a draw, each the low 7
  // bits (0 to 127 m), so a flight of 72 fixes stays at or below 126 m with
  // probability (127/128)^72, about 0.57.
  const size_t ns = size_t(nflight) * NFIX;
  std::vector<short> alt(ns + 4);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 2051u;
  for (size_t k = 0; k < ns; k += 4) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long w = (z * 0x2545F4914F6CDD1Dull) & 0x007F007F007F007Full;
    std::memcpy(alt.data() + k, &w, 8);
  }
  short *dalt = loops::to_device(alt);
  int *dcompliant = loops::device_zeros<int>(size_t(nflight));
  loops::timed(args, 2.0 * double(ns) + 4.0 * nflight, [&] {
    all_below_ceiling<<<(nflight + DA_BLOCK - 1) / DA_BLOCK, DA_BLOCK>>>(dalt, dcompliant, nflight, ceiling);
  });
  std::vector<int> got = loops::from_device(dcompliant, size_t(nflight));
  // Flags: exact; the serial reference checks every 4th flight.
  size_t bad = 0, ok_flights = 0;
  for (int d = 0; d < nflight; d += 4) {
    int ok = 1;
    for (int t = 0; t < NFIX; ++t) ok &= int(alt[size_t(d) * NFIX + size_t(t)]) <= ceiling;
    ok_flights += size_t(ok);
    if (got[size_t(d)] != ok) ++bad;
  }
  std::printf("drone_alt: %d flights of %d fixes, %zu compliant in the checked%s\n", nflight, NFIX, ok_flights,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
