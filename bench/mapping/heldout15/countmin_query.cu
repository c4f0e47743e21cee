// Held-out case (bench/mapping/heldout15.tsv): point queries against a
// count-min sketch (the frequency estimate a network monitor or a streaming
// heavy-hitter detector reads for every flow key, one key per thread): the
// sketch is NDEPTH rows of CM_WIDTH 32-bit counters, row d indexed by a
// multiplicative hash of the key salted with the row's own salt (a small
// array every thread reads in the same order), and the thread takes the MIN
// of the NDEPTH counters its key hashes to. An UNSIGNED INT MIN over a
// MACRO-BOUNDED loop of gathered counters at hashed indices; depths 8 and
// 32. Written for issue 22's fifteenth held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef CM_BLOCK
#define CM_BLOCK 256
#endif

#ifndef NDEPTH
#define NDEPTH 8
#endif

#ifndef CM_LOG_WIDTH
#define CM_LOG_WIDTH 16
#endif

__global__ void cms_estimate(const unsigned *__restrict__ counter, const unsigned *__restrict__ salt,
                             const unsigned *__restrict__ key, unsigned *__restrict__ est, int nkeys) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nkeys) return;
  const unsigned x = key[q];
  unsigned e = 0xFFFFFFFFu;
  for (int d = 0; d < NDEPTH; ++d) {
    const unsigned h = (x ^ salt[d]) * 0x9E3779B1u;
    e = min(e, counter[(size_t(d) << CM_LOG_WIDTH) + (h >> (32 - CM_LOG_WIDTH))]);
  }
  est[q] = e;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nkeys = int(args.get("keys", 1 << 23));
  if (nkeys < 1) {
    std::fprintf(stderr, "countmin_query: --keys must be at least 1\n");
    return 2;
  }
  // Counters as a long stream leaves them (a floor plus a heavy-tailed
  // excess) and keys from xorshift64*; salts from a 32-bit hash of the row.
  const size_t width = size_t(1) << CM_LOG_WIDTH, ncounters = width * NDEPTH;
  std::vector<unsigned> counter(ncounters), key(static_cast<size_t>(nkeys)), salt(NDEPTH);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1541u;
  auto next = [&] {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    return z * 0x2545F4914F6CDD1Dull;
  };
  for (size_t c = 0; c < ncounters; ++c) {
    const unsigned long long h = next();
    counter[c] = 1000u + unsigned(h & 1023u) + ((h >> 10) % 61u == 0u ? unsigned(h >> 40) : 0u);
  }
  for (size_t q = 0; q < key.size(); q += 2) {
    const unsigned long long h = next();
    key[q] = unsigned(h);
    if (q + 1 < key.size()) key[q + 1] = unsigned(h >> 32);
  }
  for (int d = 0; d < NDEPTH; ++d) {
    unsigned h = unsigned(d) * 0x9E3779B9u + 1542u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    salt[size_t(d)] = h;
  }
  unsigned *dcounter = loops::to_device(counter), *dsalt = loops::to_device(salt), *dkey = loops::to_device(key);
  unsigned *dest = loops::device_zeros<unsigned>(size_t(nkeys));
  loops::timed(args, 4.0 * NDEPTH * double(nkeys) + 8.0 * nkeys, [&] {
    cms_estimate<<<(nkeys + CM_BLOCK - 1) / CM_BLOCK, CM_BLOCK>>>(dcounter, dsalt, dkey, dest, nkeys);
  });
  std::vector<unsigned> got = loops::from_device(dest, size_t(nkeys));
  // Integer result, exact; the serial reference checks every 3rd key.
  size_t bad = 0;
  for (int q = 0; q < nkeys; q += 3) {
    unsigned e = 0xFFFFFFFFu;
    for (int d = 0; d < NDEPTH; ++d) {
      const unsigned h = (key[size_t(q)] ^ salt[size_t(d)]) * 0x9E3779B1u;
      e = std::min(e, counter[(size_t(d) << CM_LOG_WIDTH) + (h >> (32 - CM_LOG_WIDTH))]);
    }
    if (got[size_t(q)] != e) ++bad;
  }
  std::printf("countmin_query: %d keys, depth %d, width %zu%s\n", nkeys, NDEPTH, width,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  std::vector<int> out(got.begin(), got.end());
  loops::ResultFile res(args);
  res.add(out);
  return bad ? 1 : 0;
}
