// Held-out case (bench/mapping/heldout2.tsv): a for-each loop, no reduction:
// each thread takes one row of a row-major matrix and writes every element
// scaled by its row's factor plus a per-column bias (the normalise-and-shift
// pass of a layer in inference code). Every iteration writes its own element.
// Held-out: no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef SCALE_BLOCK
#define SCALE_BLOCK 128
#endif

__global__ void row_scale(const float *in, const float *row_factor, const float *col_bias, float *out, int rows,
                          int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float f = row_factor[r];
    for (int c = 0; c < cols; ++c)
      out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * f + col_bias[c];
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 65536)), cols = int(args.get("cols", 64));
  float *in = loops::to_device(loops::random_floats(size_t(rows) * cols, 101));
  float *factor = loops::to_device(loops::random_floats(size_t(rows), 102, 0.5f, 2.f));
  float *bias = loops::to_device(loops::random_floats(size_t(cols), 103));
  float *out = loops::device_zeros<float>(size_t(rows) * cols);
  loops::timed(args, 8.0 * double(rows) * cols, [&] {
    row_scale<<<(rows + SCALE_BLOCK - 1) / SCALE_BLOCK, SCALE_BLOCK>>>(in, factor, bias, out, rows, cols);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(rows) * cols));
  return 0;
}
