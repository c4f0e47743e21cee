// Held-out case (bench/mapping/heldout.tsv): transposed matrix-vector product
// y = A^T x, one thread per column, a uniform loop down the rows whose loads
// are contiguous across threads (the column-sum shape of cuda-samples and of
// CUDA-NP's TMV, written afresh). Held-out: no weight was tuned on it.
#include "loops_harness.cuh"

#ifndef TMV_THREADS
#define TMV_THREADS 128
#endif

__global__ void tmv_cols(const float *A, const float *x, float *y, int nrows, int ncols) {
  const int col = blockIdx.x * TMV_THREADS + threadIdx.x;
  if (col < ncols) {
    float s = 0.0f;
    for (int row = 0; row < nrows; row++)
      s += A[(size_t)row * ncols + col] * x[row];
    y[col] = s;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nrows = int(args.get("rows", 4096)), ncols = int(args.get("cols", 2048));
  float *A = loops::to_device(loops::random_floats(size_t(nrows) * ncols, 21));
  float *x = loops::to_device(loops::random_floats(size_t(nrows), 22));
  float *y = loops::device_zeros<float>(size_t(ncols));
  loops::timed(args, 4.0 * (double(nrows) * ncols + nrows + ncols), [&] {
    tmv_cols<<<(ncols + TMV_THREADS - 1) / TMV_THREADS, TMV_THREADS>>>(A, x, y, nrows, ncols);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(ncols)));
  return 0;
}
