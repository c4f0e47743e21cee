// Held-out case (bench/mapping/heldout8.tsv): the Hamming distance of every
// fixed-length sequence to a query (the barcode / UMI matching step of single-
// cell demultiplexers, or a seed filter before alignment, one candidate per
// thread): sequence i holds len symbols (0..3) contiguously, and one thread
// counts the positions where it differs from the query, read alongside (the
// same query symbol for every thread). An integer count over a dense
// contiguous row of bytes with a second, shared read per position; rows of 48
// and 1024 symbols. Written for issue 22's eighth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef HAM_BLOCK
#define HAM_BLOCK 128
#endif

__global__ void hamming_to_query(const unsigned char *seq, const unsigned char *query, int *dist, int count, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    const unsigned char *s = seq + (size_t)i * len;
    int d = 0;
    for (int p = 0; p < len; ++p) d += s[p] != query[p] ? 1 : 0;
    dist[i] = d;
  }
}

static unsigned mix32(unsigned h) {
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int count = int(args.get("seqs", 1048576)), len = int(args.get("len", 48));
  if (count < 1 || len < 1) {
    std::fprintf(stderr, "hamming_query: --seqs and --len must be at least 1\n");
    return 2;
  }
  // The query from a hash; every sequence is the query with about a quarter
  // of its symbols changed (a second hash picks which and to what), so that
  // distances spread around len / 4 rather than 3 len / 4.
  std::vector<unsigned char> query(static_cast<size_t>(len));
  for (int p = 0; p < len; ++p) query[size_t(p)] = (unsigned char)(mix32(unsigned(p) * 0x9E3779B9u + 821u) & 3u);
  const size_t total = size_t(count) * len;
  std::vector<unsigned char> seq(total);
  for (size_t j = 0; j < total; j += 4) {
    const unsigned h = mix32(unsigned(j >> 2) * 0x9E3779B9u + 822u);
    for (size_t b = 0; b < 4 && j + b < total; ++b) {
      const unsigned byte = (h >> (8 * b)) & 255u;
      const unsigned char q = query[(j + b) % size_t(len)];
      seq[j + b] = (byte & 3u) == 0 ? (unsigned char)((byte >> 2) & 3u) : q;
    }
  }
  unsigned char *dseq = loops::to_device(seq), *dquery = loops::to_device(query);
  int *dist = loops::device_zeros<int>(size_t(count));
  loops::timed(args, double(total) + 4.0 * count, [&] {
    hamming_to_query<<<(count + HAM_BLOCK - 1) / HAM_BLOCK, HAM_BLOCK>>>(dseq, dquery, dist, count, len);
  });
  std::vector<int> got = loops::from_device(dist, size_t(count));
  size_t bad = 0;
  for (int i = 0; i < count; ++i) {
    int d = 0;
    for (int p = 0; p < len; ++p) d += seq[size_t(i) * len + size_t(p)] != query[size_t(p)];
    if (got[size_t(i)] != d) ++bad;
  }
  std::printf("hamming_query: %d sequences of %d symbols%s\n", count, len, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
