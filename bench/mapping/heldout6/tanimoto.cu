// Held-out case (bench/mapping/heldout6.tsv): Tanimoto similarity of every
// fingerprint of a screening library to one query (the inner step of a
// cheminformatics similarity search over bit-packed molecular fingerprints):
// one thread per fingerprint walks its row of 32-bit words and counts the
// bits it shares with the query and the bits either has (two integer popcount
// accumulators over a dense row, each thread reading its own contiguous row),
// then divides. Rows of 16 and 256 words (512- and 8192-bit fingerprints).
// Written for issue 22's sixth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef TANI_BLOCK
#define TANI_BLOCK 256
#endif

__global__ void tanimoto_rows(const unsigned *fp, const unsigned *query, float *sim, int rows, int words) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int both = 0, either = 0;
    for (int k = 0; k < words; ++k) {
      unsigned a = fp[(size_t)r * words + k], q = query[k];
      both += __popc(a & q);
      either += __popc(a | q);
    }
    sim[r] = either > 0 ? float(both) / float(either) : 0.0f;
  }
}

// Sparse-ish bits (about a quarter set: a 32-bit hash of the index ANDed
// with itself rotated) without the Mersenne Twister, which would cost more
// host time than the kernel at these sizes.
static unsigned hash_bits(unsigned i, unsigned seed) {
  unsigned v = i * 0x9E3779B9u + seed;
  v ^= v >> 16;
  v *= 0x7FEB352Du;
  v ^= v >> 15;
  v *= 0x846CA68Bu;
  v ^= v >> 16;
  return v & (v >> 11 | v << 21);
}

// The reference's bit count (SWAR: the host build has no popcount
// instruction, and the library call is slow).
static int bit_count(unsigned v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return int((((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 1048576)), words = int(args.get("words", 32));
  if (rows < 1 || words < 1) {
    std::fprintf(stderr, "tanimoto: --rows and --words must be at least 1\n");
    return 2;
  }
  const size_t total = size_t(rows) * words;
  std::vector<unsigned> fp(total), query(static_cast<size_t>(words));
  for (size_t i = 0; i < total; ++i) fp[i] = hash_bits(unsigned(i), 631u);
  for (int k = 0; k < words; ++k) query[size_t(k)] = hash_bits(unsigned(k), 632u);
  unsigned *dfp = loops::to_device(fp), *dq = loops::to_device(query);
  float *sim = loops::device_zeros<float>(size_t(rows));
  loops::timed(args, 4.0 * double(total) + 4.0 * rows, [&] {
    tanimoto_rows<<<(rows + TANI_BLOCK - 1) / TANI_BLOCK, TANI_BLOCK>>>(dfp, dq, sim, rows, words);
  });
  std::vector<float> got = loops::from_device(sim, size_t(rows));
  // Integer counts and one float division: the same on both sides.
  size_t bad = 0;
  for (int r = 0; r < rows; ++r) {
    int both = 0, either = 0;
    for (int k = 0; k < words; ++k) {
      const unsigned a = fp[size_t(r) * words + k], q = query[size_t(k)];
      both += bit_count(a & q);
      either += bit_count(a | q);
    }
    const float want = either > 0 ? float(both) / float(either) : 0.0f;
    if (std::fabs(got[size_t(r)] - want) > 1e-6f) ++bad;
  }
  std::printf("tanimoto: %d fingerprints x %d words%s\n", rows, words, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
