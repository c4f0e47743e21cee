// Held-out case (bench/mapping/heldout6.tsv): a weighted embedding lookup (the
// input layer of a recommender or language model, before any pooling): item i
// copies row ids[i] of an embedding table, scaled by its own weight, into
// row i of the output. One thread per item writes every element of its output
// row: a for-each loop with an indirect (gathered) source row and no
// reduction. Rows of 16 and 384 elements. Written for issue 22's sixth
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it.
#include "loops_harness.cuh"

#ifndef GATHER_BLOCK
#define GATHER_BLOCK 256
#endif

__global__ void gather_rows(const float *table, const int *ids, const float *weight, float *out, int items, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < items) {
    size_t src = (size_t)ids[i] * dim;
    float w = weight[i];
    for (int k = 0; k < dim; ++k) out[(size_t)i * dim + k] = w * table[src + k];
  }
}

static unsigned mix32(unsigned v) {
  v ^= v >> 16;
  v *= 0x7FEB352Du;
  v ^= v >> 15;
  v *= 0x846CA68Bu;
  return v ^ (v >> 16);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int items = int(args.get("items", 1048576)), dim = int(args.get("dim", 64)), vocab = int(args.get("vocab", 65536));
  if (items < 1 || dim < 1 || vocab < 1) {
    std::fprintf(stderr, "gather_rows: --items, --dim and --vocab must be at least 1\n");
    return 2;
  }
  // Cheap hashed inputs; ids skewed towards the front of the table (popular
  // entries), as real lookups are.
  std::vector<float> table(size_t(vocab) * dim), weight(static_cast<size_t>(items));
  std::vector<int> ids(static_cast<size_t>(items));
  for (size_t k = 0; k < table.size(); ++k) table[k] = float(mix32(unsigned(k) + 651u) >> 8) * (2.0f / 16777216.0f) - 1.0f;
  for (int i = 0; i < items; ++i) {
    const unsigned h = mix32(unsigned(i) * 3u + 652u);
    ids[size_t(i)] = int(((unsigned long long)(h & 0xFFFFu) * (h >> 16) >> 16) % unsigned(vocab));
    weight[size_t(i)] = 0.5f + float(mix32(unsigned(i) + 653u) >> 8) * (1.0f / 16777216.0f);
  }
  float *dtable = loops::to_device(table), *dweight = loops::to_device(weight);
  int *dids = loops::to_device(ids);
  float *out = loops::device_zeros<float>(size_t(items) * dim);
  loops::timed(args, 8.0 * double(items) * dim + 8.0 * items, [&] {
    gather_rows<<<(items + GATHER_BLOCK - 1) / GATHER_BLOCK, GATHER_BLOCK>>>(dtable, dids, dweight, out, items, dim);
  });
  std::vector<float> got = loops::from_device(out, size_t(items) * dim);
  // One product per element: the same float on both sides.
  size_t bad = 0;
  for (int i = 0; i < items; ++i)
    for (int k = 0; k < dim; ++k) {
      const float want = weight[size_t(i)] * table[size_t(ids[size_t(i)]) * dim + k];
      if (std::fabs(got[size_t(i) * dim + k] - want) > 1e-6f) ++bad;
    }
  std::printf("gather_rows: %d items x %d (table of %d)%s\n", items, dim, vocab,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
