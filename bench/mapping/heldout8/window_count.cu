// Held-out case (bench/mapping/heldout8.tsv): how many of every sensor's
// readings lie inside its own tolerance window (the in-spec count of a
// statistical-process-control or data-quality pass over a batch of sensor
// records, one record per thread): record i holds len readings contiguously,
// with its own bounds lo[i] <= x <= hi[i], and one thread counts the readings
// inside. An integer count with two compares per element over a dense
// contiguous row; rows of 8 and 256. Written for issue 22's eighth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on
// it. (Its first form, the same kernel with the two bounds declared in one
// statement, `float a = lo[i], b = hi[i];`, was offered no rewrite, and so
// were two replacements on the same records, each also declaring two locals
// in one statement; see heldout8.tsv's header.)
#include "loops_harness.cuh"

#ifndef WIN_BLOCK
#define WIN_BLOCK 256
#endif

__global__ void count_in_window(const float *x, const float *lo, const float *hi, int *inside, int records, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < records) {
    float a = lo[i];
    float b = hi[i];
    int c = 0;
    for (int k = 0; k < len; ++k) {
      float v = x[(size_t)i * len + k];
      c += (v >= a && v <= b) ? 1 : 0;
    }
    inside[i] = c;
  }
}

static float hash_unit(unsigned i, unsigned salt) {  // in [0, 1)
  i = i * 0x9E3779B9u + salt;
  i ^= i >> 16;
  i *= 0x7FEB352Du;
  i ^= i >> 15;
  i *= 0x846CA68Bu;
  i ^= i >> 16;
  return float(i >> 8) * (1.0f / 16777216.0f);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int records = int(args.get("records", 1048576)), len = int(args.get("len", 8));
  if (records < 1 || len < 1) {
    std::fprintf(stderr, "window_count: --records and --len must be at least 1\n");
    return 2;
  }
  const size_t total = size_t(records) * len;
  std::vector<float> x(total), lo(static_cast<size_t>(records)), hi(static_cast<size_t>(records));
  for (size_t j = 0; j < total; ++j) x[j] = hash_unit(unsigned(j), 851u);
  // Windows of width 0.3 to 0.9 placed anywhere in [0, 1].
  for (int i = 0; i < records; ++i) {
    const float w = 0.3f + 0.6f * hash_unit(unsigned(i), 852u);
    lo[size_t(i)] = (1.0f - w) * hash_unit(unsigned(i), 853u);
    hi[size_t(i)] = lo[size_t(i)] + w;
  }
  float *dx = loops::to_device(x), *dlo = loops::to_device(lo), *dhi = loops::to_device(hi);
  int *inside = loops::device_zeros<int>(size_t(records));
  loops::timed(args, 4.0 * double(total) + 12.0 * records, [&] {
    count_in_window<<<(records + WIN_BLOCK - 1) / WIN_BLOCK, WIN_BLOCK>>>(dx, dlo, dhi, inside, records, len);
  });
  std::vector<int> got = loops::from_device(inside, size_t(records));
  size_t bad = 0;
  for (int i = 0; i < records; ++i) {
    int c = 0;
    for (int k = 0; k < len; ++k) {
      const float v = x[size_t(i) * len + size_t(k)];
      c += v >= lo[size_t(i)] && v <= hi[size_t(i)];
    }
    if (got[size_t(i)] != c) ++bad;
  }
  std::printf("window_count: %d records of %d readings%s\n", records, len, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
