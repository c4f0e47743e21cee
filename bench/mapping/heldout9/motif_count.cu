// Held-out case (bench/mapping/heldout9.tsv): how often a short motif occurs
// in every sequencing read (a k-mer or restriction-site count, as a read
// filter or an adapter scan does it one read per thread): reads are stored
// back to back as bytes, the motif sits in constant memory, and one thread
// slides over its read, comparing the four bytes at every start position
// with the motif's. An integer count over a dense contiguous row of bytes,
// each position reading four bytes (three of them the next positions');
// reads of 64 and 1024 bases. Written for issue 22's ninth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
// (Its first form, the same kernel testing each position with a small
// __device__ helper that looped over the motif's bases, under the loop
// condition `k + MOTIF_LEN <= len`, was offered no rewrite; see
// heldout9.tsv's header.)
#include "loops_harness.cuh"

#ifndef MOTIF_BLOCK
#define MOTIF_BLOCK 128
#endif

#define MOTIF_LEN 4

__constant__ char c_motif[MOTIF_LEN];

__global__ void count_motif(const char *reads, int *hits, int nreads, int len) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nreads) return;
  int found = 0;
  for (int k = 0; k <= len - MOTIF_LEN; ++k) {
    const char *s = reads + (size_t)r * len + k;
    found += (s[0] == c_motif[0] && s[1] == c_motif[1] && s[2] == c_motif[2] && s[3] == c_motif[3]) ? 1 : 0;
  }
  hits[r] = found;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nreads = int(args.get("reads", 1048576)), len = int(args.get("len", 64));
  if (nreads < 1 || len < 1) {
    std::fprintf(stderr, "motif_count: --reads and --len must be at least 1\n");
    return 2;
  }
  // Uniform bases from a 32-bit hash, 16 to a hash (2 bits each); the motif
  // GATC (the Dam/DpnI site) then starts at about one position in 256.
  static const char kBases[4] = {'A', 'C', 'G', 'T'};
  const char motif[MOTIF_LEN] = {'G', 'A', 'T', 'C'};
  const size_t total = size_t(nreads) * len;
  std::vector<char> reads(total);
  for (size_t j = 0; j < total; j += 16) {
    unsigned h = unsigned(j >> 4) * 0x9E3779B9u + 921u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    for (size_t b = 0; b < 16 && j + b < total; ++b) reads[j + b] = kBases[(h >> (2 * b)) & 3u];
  }
  NESTOR_CUDA_CHECK(cudaMemcpyToSymbol(c_motif, motif, sizeof motif));
  char *dreads = loops::to_device(reads);
  int *hits = loops::device_zeros<int>(size_t(nreads));
  loops::timed(args, double(total) + 4.0 * nreads, [&] {
    count_motif<<<(nreads + MOTIF_BLOCK - 1) / MOTIF_BLOCK, MOTIF_BLOCK>>>(dreads, hits, nreads, len);
  });
  std::vector<int> got = loops::from_device(hits, size_t(nreads));
  size_t bad = 0;
  long long all = 0;
  for (int r = 0; r < nreads; ++r) {
    const char *s = reads.data() + size_t(r) * len;
    int c = 0;
    for (int k = 0; k + MOTIF_LEN <= len; ++k)
      c += s[k] == motif[0] && s[k + 1] == motif[1] && s[k + 2] == motif[2] && s[k + 3] == motif[3];
    all += c;
    if (got[size_t(r)] != c) ++bad;
  }
  std::printf("motif_count: %d reads of %d bases, %lld hits%s\n", nreads, len, all,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
