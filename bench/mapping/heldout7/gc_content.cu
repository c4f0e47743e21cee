// Held-out case (bench/mapping/heldout7.tsv): the GC count of every sequencing
// read (the per-read GC-content statistic of read quality control and of the
// GC-bias correction in coverage callers, FastQC- or samtools-style, one read
// per thread): read r holds len bases (0..3 for A, C, G, T) contiguously, and
// one thread per read counts its C and G bases. An integer count over a dense
// contiguous row of bytes; reads of 100 and 400 bases. Written for issue 22's
// seventh held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it. (It replaces a per-read minimizer on the same reads,
// for which no rewrite was offered.)
#include "loops_harness.cuh"

#ifndef GC_BLOCK
#define GC_BLOCK 128
#endif

__global__ void gc_count(const unsigned char *bases, int *gc, int reads, int len) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < reads) {
    size_t first = (size_t)r * len;
    int c = 0;
    for (int p = 0; p < len; ++p) {
      unsigned char b = bases[first + p];
      c += (b == 1 || b == 2) ? 1 : 0;
    }
    gc[r] = c;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int reads = int(args.get("reads", 524288)), len = int(args.get("len", 100));
  if (reads < 1 || len < 1) {
    std::fprintf(stderr, "gc_content: --reads and --len must be at least 1\n");
    return 2;
  }
  // Bases 0..3 (A, C, G, T) from a 32-bit hash, four per hash.
  const size_t total = size_t(reads) * len;
  std::vector<unsigned char> bases(total);
  for (size_t i = 0; i < total; i += 4) {
    unsigned h = unsigned(i >> 2) * 0x9E3779B9u + 721u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    for (size_t b = 0; b < 4 && i + b < total; ++b) bases[i + b] = (unsigned char)((h >> (8 * b)) & 3u);
  }
  unsigned char *dbases = loops::to_device(bases);
  int *gc = loops::device_zeros<int>(size_t(reads));
  loops::timed(args, double(total) + 4.0 * reads, [&] {
    gc_count<<<(reads + GC_BLOCK - 1) / GC_BLOCK, GC_BLOCK>>>(dbases, gc, reads, len);
  });
  std::vector<int> got = loops::from_device(gc, size_t(reads));
  size_t bad = 0;
  for (int r = 0; r < reads; ++r) {
    int c = 0;
    for (int p = 0; p < len; ++p) {
      const unsigned char b = bases[size_t(r) * len + size_t(p)];
      c += b == 1 || b == 2;
    }
    if (got[size_t(r)] != c) ++bad;
  }
  std::printf("gc_content: %d reads of %d bases%s\n", reads, len, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
