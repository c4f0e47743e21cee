// Held-out case (bench/mapping/heldout20.tsv): every battery module's weakest
// cell voltage (the figure a battery-management system's balancing pass and a
// grid-storage site's health report start from, one module per thread):
// module m's NCELL FLOAT cell voltages are stored together (row-major,
// m x NCELL + c), and the thread keeps a FLOAT MIN, from 5 volts (above any
// cell), over a MACRO-BOUNDED loop (c < NCELL); 96 cells. A FLOAT MIN of a
// row-major float. Written for issue 22's twentieth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
#include <cstring>

#include "loops_harness.cuh"

#ifndef BC_BLOCK
#define BC_BLOCK 128
#endif

#ifndef NCELL
#define NCELL 96
#endif

__global__ void weakest_cell_voltage(const float *__restrict__ volts, float *__restrict__ weakest, int nmod) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= nmod) return;
  float v = 5.0f;
  for (int c = 0; c < NCELL; ++c) v = fminf(v, volts[size_t(m) * NCELL + c]);
  weakest[m] = v;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nmod = int(args.get("modules", 655360));
  if (nmod < 1) {
    std::fprintf(stderr, "battery_cells: --modules must be at least 1\n");
    return 2;
  }
  // Voltages from xorshift64*, two a draw: 2.8 V plus 1/16384 V times 14
  // random bits (2.8 to 3.8 V), exact in float.
  const size_t ns = size_t(nmod) * NCELL;
  std::vector<float> volts(ns + 2);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 2021u;
  for (size_t k = 0; k < ns; k += 2) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    volts[k] = 2.8f + float(unsigned(h >> 20) & 16383u) * (1.0f / 16384.0f);
    volts[k + 1] = 2.8f + float(unsigned(h >> 44) & 16383u) * (1.0f / 16384.0f);
  }
  float *dvolts = loops::to_device(volts);
  float *dweakest = loops::device_zeros<float>(size_t(nmod));
  loops::timed(args, 4.0 * double(ns) + 4.0 * nmod, [&] {
    weakest_cell_voltage<<<(nmod + BC_BLOCK - 1) / BC_BLOCK, BC_BLOCK>>>(dvolts, dweakest, nmod);
  });
  std::vector<float> got = loops::from_device(dweakest, size_t(nmod));
  // A minimum of stored floats: exact; the serial reference checks every 4th
  // module.
  size_t bad = 0;
  double total = 0.0;
  for (int m = 0; m < nmod; m += 4) {
    float v = 5.0f;
    for (int c = 0; c < NCELL; ++c) v = std::min(v, volts[size_t(m) * NCELL + size_t(c)]);
    total += v;
    if (got[size_t(m)] != v) ++bad;
  }
  std::printf("battery_cells: %d modules of %d cells, %.1f V of weakest in the checked%s\n", nmod, NCELL, total,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
