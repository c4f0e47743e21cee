// Held-out case (bench/mapping/heldout20.tsv): every web site's busiest hour
// of the week (the slot a CDN's capacity planner or an ad server's pacing
// step reads from a week of request counts, one site per thread): site s's
// nhour UNSIGNED request counts are stored together (row-major,
// s x nhour + h), and the thread keeps an ARGMAX folded as an UNSIGNED LONG
// LONG MAX, from 0, of keys packing the count above the hour's index (ties
// go to the later hour) over a PARAMETER-TRIP loop (h < nhour); 168 hours.
// Written for issue 22's twentieth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef BH_BLOCK
#define BH_BLOCK 128
#endif

__global__ void busiest_hour_slot(const unsigned *__restrict__ hits, int *__restrict__ slot, int nsite, int nhour) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nsite) return;
  unsigned long long best = 0ull;
  for (int h = 0; h < nhour; ++h)
    best = max(best, (unsigned long long)hits[size_t(s) * nhour + h] << 32 | unsigned(h));
  slot[s] = int(unsigned(best));
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nsite = int(args.get("sites", 262144)), nhour = int(args.get("hours", 168));
  if (nsite < 1 || nhour < 1) {
    std::fprintf(stderr, "busiest_hour: --sites and --hours must be at least 1\n");
    return 2;
  }
  // Counts from xorshift64*, two a draw: 20 random bits each, plus 2^20
  // times the hour's daily bump (hours 18 to 21 of each day), so ties are
  // rare and the evening slots usually win.
  const size_t ns = size_t(nsite) * size_t(nhour);
  std::vector<unsigned> hits(ns + 2);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 2061u;
  for (size_t k = 0; k < ns; k += 2) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long r = z * 0x2545F4914F6CDD1Dull;
    const unsigned h0 = unsigned(k % size_t(nhour)) % 24u, h1 = unsigned((k + 1) % size_t(nhour)) % 24u;
    hits[k] = (unsigned(r >> 12) & 0xFFFFFu) + (h0 >= 18u && h0 <= 21u ? 1u << 20 : 0u);
    hits[k + 1] = (unsigned(r >> 40) & 0xFFFFFu) + (h1 >= 18u && h1 <= 21u ? 1u << 20 : 0u);
  }
  unsigned *dhits = loops::to_device(hits);
  int *dslot = loops::device_zeros<int>(size_t(nsite));
  loops::timed(args, 4.0 * double(ns) + 4.0 * nsite, [&] {
    busiest_hour_slot<<<(nsite + BH_BLOCK - 1) / BH_BLOCK, BH_BLOCK>>>(dhits, dslot, nsite, nhour);
  });
  std::vector<int> got = loops::from_device(dslot, size_t(nsite));
  // An index of a maximum of integers: exact; the serial reference checks
  // every 4th site.
  size_t bad = 0, evening = 0;
  for (int s = 0; s < nsite; s += 4) {
    unsigned long long best = 0ull;
    for (int h = 0; h < nhour; ++h)
      best = std::max(best, (unsigned long long)hits[size_t(s) * size_t(nhour) + size_t(h)] << 32 | unsigned(h));
    const int b = int(unsigned(best));
    evening += b % 24 >= 18 && b % 24 <= 21;
    if (got[size_t(s)] != b) ++bad;
  }
  std::printf("busiest_hour: %d sites of %d hours, %zu evening peaks in the checked%s\n", nsite, nhour, evening,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
