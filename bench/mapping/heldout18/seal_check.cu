// Held-out case (bench/mapping/heldout18.tsv): which shipping containers
// arrive with every seal sensor intact (the gate-in check of a container
// terminal's IoT platform, one container per thread): container c's NSEAL
// UNSIGNED CHAR sensor readings are stored together (row-major, c x NSEAL +
// s), each sensor's lowest acceptable reading is an UNSIGNED CHAR every
// thread reads in the same order, and the thread keeps a LOGICAL AND,
// written `ok &= ...` on an int flag, of reading >= threshold over a
// MACRO-BOUNDED loop (s < NSEAL); 12 sensors. Written for issue 22's
// eighteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include <cstring>

#include "loops_harness.cuh"

#ifndef SC_BLOCK
#define SC_BLOCK 256
#endif

#ifndef NSEAL
#define NSEAL 12
#endif

__global__ void all_seals_intact(const unsigned char *__restrict__ reading, const unsigned char *__restrict__ floor_,
                                 int *__restrict__ intact, int ncont) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= ncont) return;
  int ok = 1;
  for (int s = 0; s < NSEAL; ++s) ok &= reading[size_t(c) * NSEAL + s] >= floor_[s] ? 1 : 0;
  intact[c] = ok;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int ncont = int(args.get("containers", 1 << 24));
  if (ncont < 1) {
    std::fprintf(stderr, "seal_check: --containers must be at least 1\n");
    return 2;
  }
  // Thresholds 20 to 60 from a hash; readings from xorshift64*, eight bytes
  // a draw, 64 to 255 (the draw with bit 6 set in every byte), except that
  // one draw in 64 breaks one of its bytes (a broken seal, reading 0 to 15).
  std::vector<unsigned char> floor_(NSEAL);
  for (int s = 0; s < NSEAL; ++s) floor_[size_t(s)] = (unsigned char)(20 + (unsigned(s) * 0x9E3779B9u + 1881u) % 41u);
  const size_t nr = size_t(ncont) * NSEAL;
  std::vector<unsigned char> reading(nr + 8);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1882u;
  for (size_t k = 0; k < nr; k += 8) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    unsigned long long w = h | 0x4040404040404040ull;
    if ((h >> 58) == 0u) w &= ~(0xF0ull << (8 * ((h >> 52) & 7u)));
    std::memcpy(reading.data() + k, &w, 8);
  }
  unsigned char *dreading = loops::to_device(reading), *dfloor = loops::to_device(floor_);
  int *dintact = loops::device_zeros<int>(size_t(ncont));
  loops::timed(args, double(nr) + 4.0 * ncont, [&] {
    all_seals_intact<<<(ncont + SC_BLOCK - 1) / SC_BLOCK, SC_BLOCK>>>(dreading, dfloor, dintact, ncont);
  });
  std::vector<int> got = loops::from_device(dintact, size_t(ncont));
  // Flags: exact; the serial reference checks every 4th container.
  size_t bad = 0, broken = 0;
  for (int c = 0; c < ncont; c += 4) {
    int ok = 1;
    for (int s = 0; s < NSEAL; ++s) ok &= reading[size_t(c) * NSEAL + size_t(s)] >= floor_[size_t(s)] ? 1 : 0;
    broken += size_t(1 - ok);
    if (got[size_t(c)] != ok) ++bad;
  }
  std::printf("seal_check: %d containers of %d seals, %zu of the checked broken%s\n", ncont, NSEAL, broken,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
