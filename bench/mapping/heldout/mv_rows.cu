// Held-out case (bench/mapping/heldout.tsv): row-major matrix-vector product,
// one thread per row, the inner product over the row a uniform loop (the
// shape of Rodinia's and cuda-samples' simple MV kernels). Written for the
// held-out set of issue 22; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef MV_BLOCK
#define MV_BLOCK 128
#endif

__global__ void mv_rows(const float *mat, const float *vec, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int k = 0; k < cols; ++k)
    acc += mat[(size_t)r * cols + k] * vec[k];
  out[r] = acc;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 8192)), cols = int(args.get("cols", 512));
  float *mat = loops::to_device(loops::random_floats(size_t(rows) * cols, 11));
  float *vec = loops::to_device(loops::random_floats(size_t(cols), 12));
  float *out = loops::device_zeros<float>(size_t(rows));
  loops::timed(args, 4.0 * (double(rows) * cols + cols + rows),
               [&] { mv_rows<<<(rows + MV_BLOCK - 1) / MV_BLOCK, MV_BLOCK>>>(mat, vec, out, rows, cols); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(rows)));
  return 0;
}
