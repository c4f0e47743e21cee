// Held-out case (bench/mapping/heldout16.tsv): every smart meter's
// time-of-use charge (the billing run a utility's meter-data system makes
// at the end of a period, one meter per thread): meter m's NHOUR hourly
// readings are UNSIGNED SHORT watt-hours stored together (row-major, m x
// NHOUR + h), the tariff is NHOUR int prices in millicents every thread
// reads in the same order, and the thread sums reading x price as an
// UNSIGNED INT (wrapping, as the billing engine's 32-bit accumulator does)
// over a MACRO-BOUNDED loop; 24 and 168 hours. Written for issue 22's
// sixteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef MB_BLOCK
#define MB_BLOCK 128
#endif

#ifndef NHOUR
#define NHOUR 24
#endif

__global__ void tou_charge(const unsigned short *__restrict__ wh, const unsigned *__restrict__ price,
                           unsigned *__restrict__ charge, int nmeters) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= nmeters) return;
  unsigned c = 0u;
  for (int h = 0; h < NHOUR; ++h) c += unsigned(wh[size_t(m) * NHOUR + h]) * price[h];
  charge[m] = c;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nmeters = int(args.get("meters", 1 << 22));
  if (nmeters < 1) {
    std::fprintf(stderr, "meter_bill: --meters must be at least 1\n");
    return 2;
  }
  // Readings 0 to 4095 Wh from xorshift64* (four 16-bit draws a step);
  // prices 8000 to 39999 millicents, higher in the evening peak.
  const size_t nr = size_t(nmeters) * NHOUR;
  std::vector<unsigned short> wh(nr);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1641u;
  for (size_t i = 0; i < nr; i += 4) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    for (size_t j = 0; j < 4 && i + j < nr; ++j) wh[i + j] = (unsigned short)((h >> (16 * j)) & 4095u);
  }
  std::vector<unsigned> price(NHOUR);
  for (int h = 0; h < NHOUR; ++h) {
    unsigned x = unsigned(h) * 0x9E3779B9u + 1642u;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    price[size_t(h)] = 8000u + x % 16000u + (h % 24 >= 17 && h % 24 < 21 ? 16000u : 0u);
  }
  unsigned short *dwh = loops::to_device(wh);
  unsigned *dprice = loops::to_device(price);
  unsigned *dcharge = loops::device_zeros<unsigned>(size_t(nmeters));
  loops::timed(args, 2.0 * double(nr) + 4.0 * nmeters, [&] {
    tou_charge<<<(nmeters + MB_BLOCK - 1) / MB_BLOCK, MB_BLOCK>>>(dwh, dprice, dcharge, nmeters);
  });
  std::vector<unsigned> got = loops::from_device(dcharge, size_t(nmeters));
  // Unsigned sums modulo 2^32: exact in any order; every 4th meter checked.
  size_t bad = 0;
  for (int m = 0; m < nmeters; m += 4) {
    unsigned c = 0u;
    for (int h = 0; h < NHOUR; ++h) c += unsigned(wh[size_t(m) * NHOUR + size_t(h)]) * price[size_t(h)];
    if (got[size_t(m)] != c) ++bad;
  }
  std::printf("meter_bill: %d meters, %d hours%s\n", nmeters, NHOUR, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  std::vector<int> out(got.begin(), got.end());
  loops::ResultFile res(args);
  res.add(out);
  return bad ? 1 : 0;
}
