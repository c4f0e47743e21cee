// Held-out case (bench/mapping/heldout8.tsv): the mean of every segment of a
// segmented array (a segmented reduction as a pooling layer over variable-
// length bags, or a per-session mean in an event log, one segment per thread
// as CUB's or Thrust's by-key reductions are often first written): segment
// i's values are vals[seg[i] .. seg[i + 1]), and one thread sums them and
// divides by the count (0 for an empty segment). A float sum over an
// irregular contiguous row with no gather; power-law and regular segment
// lengths (the offsets and values of a CSR matrix). Written for issue 22's
// eighth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef SEGMEAN_BLOCK
#define SEGMEAN_BLOCK 128
#endif

__global__ void segment_mean(int n, const int *seg, const float *vals, float *mean) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int first = seg[i], last = seg[i + 1];
    float s = 0.0f;
    for (int k = first; k < last; ++k) s += vals[k];
    mean[i] = last > first ? s / (float)(last - first) : 0.0f;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 262144)), avg = int(args.get("avg", 8));
  if (n < 1) {
    std::fprintf(stderr, "segment_mean: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 841)));
  int *seg = loops::to_device(a.rowptr);
  float *vals = loops::to_device(a.val), *mean = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * a.val.size() + 8.0 * n, [&] {
    segment_mean<<<(n + SEGMEAN_BLOCK - 1) / SEGMEAN_BLOCK, SEGMEAN_BLOCK>>>(n, seg, vals, mean);
  });
  std::vector<float> got = loops::from_device(mean, size_t(n));
  // The reference in double; means of values in [-1, 1) lie in [-1, 1], and a
  // float sum of a few thousand of them in any order stays within 1e-3.
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    const int first = a.rowptr[size_t(i)], last = a.rowptr[size_t(i) + 1];
    double s = 0;
    for (int k = first; k < last; ++k) s += a.val[size_t(k)];
    const double m = last > first ? s / double(last - first) : 0.0;
    if (std::fabs(got[size_t(i)] - m) > 1e-3) ++bad;
  }
  std::printf("segment_mean: %d segments, %zu values%s\n", n, a.val.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
