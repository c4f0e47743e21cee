// Held-out case (bench/mapping/heldout18.tsv): every electric vehicle's
// cheapest charging slot price (the quote a smart-charging aggregator sends
// each car for the night, one vehicle per thread): the NSLOT half-hour
// tariffs are FLOATS every thread reads in the same order, vehicle v's
// NSLOT FLOAT grid-congestion multipliers (its feeder's) are stored
// together (row-major, v x NSLOT + s), and the thread keeps a FLOAT MIN,
// from a large sentinel, of tariff times multiplier over a MACRO-BOUNDED
// loop (s < NSLOT); 48 slots. Written for issue 22's eighteenth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it.
#include "loops_harness.cuh"

#ifndef EV_BLOCK
#define EV_BLOCK 128
#endif

#ifndef NSLOT
#define NSLOT 48
#endif

__global__ void cheapest_charge_price(const float *__restrict__ tariff, const float *__restrict__ congestion,
                                      float *__restrict__ price, int nveh) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nveh) return;
  float best = 1.0e30f;
  for (int s = 0; s < NSLOT; ++s) best = fminf(best, tariff[s] * congestion[size_t(v) * NSLOT + s]);
  price[v] = best;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nveh = int(args.get("vehicles", 1 << 21));
  if (nveh < 1) {
    std::fprintf(stderr, "ev_charge: --vehicles must be at least 1\n");
    return 2;
  }
  // Tariffs 0.08 to 0.45 a kWh (mt19937); multipliers 0.9 to 1.6 from
  // xorshift64*, two 24-bit draws a step.
  std::vector<float> tariff = loops::random_floats(size_t(NSLOT), 1871u, 0.08f, 0.45f);
  const size_t nc = size_t(nveh) * NSLOT;
  std::vector<float> congestion(nc);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1872u;
  for (size_t k = 0; k < nc; k += 2) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    congestion[k] = 0.9f + float(h >> 40) * (0.7f / 16777216.0f);
    congestion[k + 1] = 0.9f + float((h >> 16) & 0xFFFFFFull) * (0.7f / 16777216.0f);
  }
  float *dtariff = loops::to_device(tariff), *dcong = loops::to_device(congestion);
  float *dprice = loops::device_zeros<float>(size_t(nveh));
  loops::timed(args, 4.0 * double(nc) + 4.0 * nveh, [&] {
    cheapest_charge_price<<<(nveh + EV_BLOCK - 1) / EV_BLOCK, EV_BLOCK>>>(dtariff, dcong, dprice, nveh);
  });
  std::vector<float> got = loops::from_device(dprice, size_t(nveh));
  // A min of the same float products: exact in any order; the serial
  // reference checks every 4th vehicle.
  size_t bad = 0;
  double total = 0.0;
  for (int v = 0; v < nveh; v += 4) {
    float best = 1.0e30f;
    for (int s = 0; s < NSLOT; ++s) best = std::min(best, tariff[size_t(s)] * congestion[size_t(v) * NSLOT + size_t(s)]);
    total += best;
    if (got[size_t(v)] != best) ++bad;
  }
  std::printf("ev_charge: %d vehicles, %d slots, mean cheapest %.4f a kWh in the checked%s\n", nveh, NSLOT,
              total / double((nveh + 3) / 4), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
