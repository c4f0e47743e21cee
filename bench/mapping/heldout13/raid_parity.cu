// Held-out case (bench/mapping/heldout13.tsv): the P parity of a RAID-5/6
// stripe set (what a software RAID or an erasure-coded object store computes
// on every full-stripe write, one stripe per thread): the data disks' 64-bit
// words are stored disk by disk (word s of disk d at d x nstripes + s, so
// neighbouring threads read neighbouring words), and the thread XORs the
// NDISK words of its stripe together; it also counts the disks whose word is
// all zero (a sparse-stripe hint). An XOR of UNSIGNED LONG LONG words and a
// count over a MACRO-BOUNDED loop with a large stride; 12 and 48 disks.
// Written for issue 22's thirteenth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef RP_BLOCK
#define RP_BLOCK 256
#endif

#ifndef NDISK
#define NDISK 12
#endif

__global__ void stripe_parity(const unsigned long long *__restrict__ data, unsigned long long *__restrict__ parity,
                              int *__restrict__ zero_words, int nstripes) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nstripes) return;
  unsigned long long p = 0ull;
  int zeros = 0;
  for (int d = 0; d < NDISK; ++d) {
    const unsigned long long w = data[size_t(d) * nstripes + s];
    p ^= w;
    zeros += w == 0ull ? 1 : 0;
  }
  parity[s] = p;
  zero_words[s] = zeros;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nstripes = int(args.get("stripes", 6291456));
  if (nstripes < 1) {
    std::fprintf(stderr, "raid_parity: --stripes must be at least 1\n");
    return 2;
  }
  // Random words (xorshift64*), one in eight zero (unwritten blocks).
  const size_t nwords = size_t(nstripes) * NDISK;
  std::vector<unsigned long long> data(nwords);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1361u;
  for (size_t i = 0; i < nwords; ++i) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    data[i] = (h >> 61) == 0u ? 0ull : h;
  }
  unsigned long long *ddata = loops::to_device(data);
  unsigned long long *par = loops::device_zeros<unsigned long long>(size_t(nstripes));
  int *zw = loops::device_zeros<int>(size_t(nstripes));
  loops::timed(args, 8.0 * double(nwords) + 12.0 * nstripes, [&] {
    stripe_parity<<<(nstripes + RP_BLOCK - 1) / RP_BLOCK, RP_BLOCK>>>(ddata, par, zw, nstripes);
  });
  std::vector<unsigned long long> got = loops::from_device(par, size_t(nstripes));
  std::vector<int> got_zero = loops::from_device(zw, size_t(nstripes));
  // Integer results, exact; the serial reference checks every 5th stripe.
  size_t bad = 0;
  for (int s = 0; s < nstripes; s += 5) {
    unsigned long long p = 0;
    int zeros = 0;
    for (int d = 0; d < NDISK; ++d) {
      p ^= data[size_t(d) * nstripes + size_t(s)];
      zeros += data[size_t(d) * nstripes + size_t(s)] == 0ull;
    }
    if (got[size_t(s)] != p || got_zero[size_t(s)] != zeros) ++bad;
  }
  // The result file takes 32-bit values: the parity as low and high halves.
  std::vector<unsigned> lo(got.size()), hi(got.size());
  for (size_t s = 0; s < got.size(); ++s) lo[s] = unsigned(got[s]), hi[s] = unsigned(got[s] >> 32);
  std::printf("raid_parity: %d stripes of %d disks%s\n", nstripes, NDISK, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(lo);
  res.add(hi);
  res.add(got_zero);
  return bad ? 1 : 0;
}
