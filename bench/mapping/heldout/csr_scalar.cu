// Held-out case (bench/mapping/heldout.tsv): CSR sparse matrix-vector product
// in the scalar form of SHOC's and the Li/Wu/Becchi study's SpMV (one thread per
// row, the row's bounds read into locals, an irregular reduction loop).
// Held-out: no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef SPMV_BLOCK
#define SPMV_BLOCK 64
#endif

__global__ void csr_scalar(int nrows, const int *row_offsets, const int *cols, const float *vals, const float *x,
                           float *y) {
  int row = blockDim.x * blockIdx.x + threadIdx.x;
  if (row < nrows) {
    float dot = 0.0f;
    for (int e = row_offsets[row]; e < row_offsets[row + 1]; e++)
      dot += vals[e] * x[cols[e]];
    y[row] = dot;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 65536)), avg = int(args.get("avg", 16));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(rows, rows, avg, powerlaw, unsigned(args.get("seed", 31)));
  int *rp = loops::to_device(a.rowptr), *ci = loops::to_device(a.col);
  float *v = loops::to_device(a.val), *x = loops::to_device(loops::random_floats(size_t(rows), 32));
  float *y = loops::device_zeros<float>(size_t(rows));
  loops::timed(args, 12.0 * a.val.size() + 12.0 * rows,
               [&] { csr_scalar<<<(rows + SPMV_BLOCK - 1) / SPMV_BLOCK, SPMV_BLOCK>>>(rows, rp, ci, v, x, y); });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  return 0;
}
