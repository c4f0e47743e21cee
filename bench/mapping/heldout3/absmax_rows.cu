// Held-out case (bench/mapping/heldout3.tsv): per-row int8 quantisation
// scales (the calibration pass of inference code that quantises activations
// row by row): one thread per row finds the largest magnitude in its
// row-major row with fmaxf and stores the scale that maps it to 127. A max
// reduction, no sum. Written for issue 22's third held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef QMAX_BLOCK
#define QMAX_BLOCK 128
#endif

__global__ void absmax_rows(const float *act, float *scale, int rows, int width) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = 0.0f;
    for (int c = 0; c < width; c++)
      m = fmaxf(m, fabsf(act[(size_t)r * width + c]));
    scale[r] = m > 0.0f ? m / 127.0f : 1.0f;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 262144)), width = int(args.get("width", 64));
  std::vector<float> act = loops::random_floats(size_t(rows) * width, 311, -4.f, 4.f);
  float *dact = loops::to_device(act);
  float *scale = loops::device_zeros<float>(size_t(rows));
  loops::timed(args, 4.0 * (double(rows) * width + rows), [&] {
    absmax_rows<<<(rows + QMAX_BLOCK - 1) / QMAX_BLOCK, QMAX_BLOCK>>>(dact, scale, rows, width);
  });
  std::vector<float> got = loops::from_device(scale, size_t(rows));
  // A maximum is exact in any order: the reference must match bit for bit.
  size_t bad = 0;
  for (int r = 0; r < rows; ++r) {
    float m = 0.0f;
    for (int c = 0; c < width; ++c) m = std::max(m, std::fabs(act[size_t(r) * width + c]));
    if (got[size_t(r)] != (m > 0.0f ? m / 127.0f : 1.0f)) ++bad;
  }
  std::printf("absmax_rows: %d rows x %d%s\n", rows, width, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
