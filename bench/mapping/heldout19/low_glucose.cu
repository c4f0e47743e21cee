// Held-out case (bench/mapping/heldout19.tsv): how many of every patient's
// continuous-glucose-monitor readings fall below the hypoglycaemia limit
// (the time-below-range figure a diabetes clinic's dashboard reports, one
// patient per thread): patient p's nread UNSIGNED SHORT readings (mg/dL) are
// stored together (row-major, p x nread + t), the limit is a kernel
// argument, and the thread COUNTS, into an int, the readings below it over
// a PARAMETER-TRIP loop (t < nread); 48 and 288 readings. An INT COUNT of a
// row-major unsigned short. Written for issue 22's nineteenth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
#include <cstring>

#include "loops_harness.cuh"

#ifndef LG_BLOCK
#define LG_BLOCK 128
#endif

__global__ void count_low_glucose(const unsigned short *__restrict__ mgdl, int *__restrict__ low, int npat, int nread,
                                  int limit) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npat) return;
  int c = 0;
  for (int t = 0; t < nread; ++t) c += int(mgdl[size_t(p) * nread + t]) < limit ? 1 : 0;
  low[p] = c;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int npat = int(args.get("patients", 1 << 20)), nread = int(args.get("readings", 48));
  const int limit = 70;
  if (npat < 1 || nread < 1) {
    std::fprintf(stderr, "low_glucose: --patients and --readings must be at least 1\n");
    return 2;
  }
  // Readings from xorshift64*, four 16-bit readings a draw: 64 + the low 8
  // bits (64 to 319 mg/dL), so about one in 42 is below 70.
  const size_t ns = size_t(npat) * size_t(nread);
  std::vector<unsigned short> mgdl(ns + 4);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1931u;
  for (size_t k = 0; k < ns; k += 4) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    const unsigned long long w = (h & 0x00FF00FF00FF00FFull) + 0x0040004000400040ull;
    std::memcpy(mgdl.data() + k, &w, 8);
  }
  unsigned short *dmgdl = loops::to_device(mgdl);
  int *dlow = loops::device_zeros<int>(size_t(npat));
  loops::timed(args, 2.0 * double(ns) + 4.0 * npat, [&] {
    count_low_glucose<<<(npat + LG_BLOCK - 1) / LG_BLOCK, LG_BLOCK>>>(dmgdl, dlow, npat, nread, limit);
  });
  std::vector<int> got = loops::from_device(dlow, size_t(npat));
  // Integer counts: exact; the serial reference checks every 4th patient.
  size_t bad = 0, lows = 0;
  for (int p = 0; p < npat; p += 4) {
    int c = 0;
    for (int t = 0; t < nread; ++t) c += int(mgdl[size_t(p) * size_t(nread) + size_t(t)]) < limit ? 1 : 0;
    lows += size_t(c);
    if (got[size_t(p)] != c) ++bad;
  }
  std::printf("low_glucose: %d patients of %d readings, %zu low in the checked%s\n", npat, nread, lows,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
