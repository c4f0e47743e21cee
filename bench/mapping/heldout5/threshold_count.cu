// Held-out case (bench/mapping/heldout5.tsv): for every item of a feature-
// major table (feature k of item i at x[k * n + i], the layout a columnar
// store or a cuda-samples-style structure-of-arrays kernel uses), the number
// of its features above the item's own threshold (an outlier or activity
// count per sensor, per pixel across bands, or per cell across genes): one
// thread per item walks its features with a stride of n elements, so the
// threads of a warp read consecutive addresses at every step. An integer
// count reduction over a strided walk, coalesced across threads; 48 features.
// Written for issue 22's fifth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it. (It replaces a Horner's-rule
// case of the same layout, for which no rewrite was offered.)
#include "loops_harness.cuh"

#ifndef ABOVE_BLOCK
#define ABOVE_BLOCK 256
#endif

__global__ void count_above(const float *x, const float *thr, int *count, int n, int feats) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float t = thr[i];
    int c = 0;
    for (int k = 0; k < feats; ++k) c += x[(size_t)k * n + i] > t ? 1 : 0;
    count[i] = c;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("items", 1048576)), feats = int(args.get("features", 16));
  if (n < 1 || feats < 1) {
    std::fprintf(stderr, "threshold_count: --items and --features must be at least 1\n");
    return 2;
  }
  std::vector<float> x = loops::random_floats(size_t(n) * feats, 571, 0.f, 1.f),
                     thr = loops::random_floats(size_t(n), 572, 0.2f, 0.9f);
  float *dx = loops::to_device(x), *dthr = loops::to_device(thr);
  int *count = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 4.0 * (double(n) * feats + 2.0 * n), [&] {
    count_above<<<(n + ABOVE_BLOCK - 1) / ABOVE_BLOCK, ABOVE_BLOCK>>>(dx, dthr, count, n, feats);
  });
  std::vector<int> got = loops::from_device(count, size_t(n));
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    int c = 0;
    for (int k = 0; k < feats; ++k) c += x[size_t(k) * n + i] > thr[size_t(i)];
    if (got[size_t(i)] != c) ++bad;
  }
  std::printf("threshold_count: %d items x %d features%s\n", n, feats, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
