// Held-out case (bench/mapping/heldout4.tsv): the mean of every column of a
// row-major samples x features table (the feature-centring step of a PCA or
// a standard scaler): one thread per column walks down the rows, so the
// threads of a warp read consecutive addresses at every step (coalesced
// across threads, strided along the loop). A wide, short table (32 rows) and
// a narrower, tall one (4096 rows).
// Written for issue 22's fourth held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef COLM_BLOCK
#define COLM_BLOCK 256
#endif

__global__ void column_mean(const float *table, float *mean, int samples, int features) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f < features) {
    float s = 0.0f;
    for (int i = 0; i < samples; ++i) s += table[(size_t)i * features + f];
    mean[f] = s / samples;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int samples = int(args.get("samples", 1024)), features = int(args.get("features", 16384));
  if (samples < 1 || features < 1) {
    std::fprintf(stderr, "column_mean: --samples and --features must be at least 1\n");
    return 2;
  }
  std::vector<float> t = loops::random_floats(size_t(samples) * features, 431, -1.f, 1.f);
  float *dt = loops::to_device(t), *mean = loops::device_zeros<float>(size_t(features));
  loops::timed(args, 4.0 * (double(samples) * features + features), [&] {
    column_mean<<<(features + COLM_BLOCK - 1) / COLM_BLOCK, COLM_BLOCK>>>(dt, mean, samples, features);
  });
  std::vector<float> got = loops::from_device(mean, size_t(features));
  // Means of values in [-1, 1]: 1e-4 absolute is far above float rounding
  // of a sum of 4096 terms in any order.
  std::vector<double> want(size_t(features), 0.0);
  for (int i = 0; i < samples; ++i)
    for (int f = 0; f < features; ++f) want[size_t(f)] += t[size_t(i) * features + f];
  size_t bad = 0;
  for (int f = 0; f < features; ++f)
    if (std::fabs(got[size_t(f)] - want[size_t(f)] / samples) > 1e-4) ++bad;
  std::printf("column_mean: %d samples x %d features%s\n", samples, features,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
