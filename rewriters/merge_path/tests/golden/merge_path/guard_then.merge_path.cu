// merge-path's other guard form: the loop inside `if (row < n) { ... }`, with
// an epilogue that uses the row's sum (tests/rewrite/merge_path.cmake).
#include <cuda_runtime.h>
#include <nestor/merge_path.cuh>

// merge-path (Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16):
// the iterations of the loop at line 10 for rows 0 .. n - 1, split evenly (rows + iterations) over the
// blocks of a persistent grid; each row's value goes to 'scaled_row_max', which combines it in a fixed order.
__global__ void __launch_bounds__(nestor::mp::kBlock, nestor::mp::kMinBlocks) scaled_row_max_nestor_merge(const long long *offsets, const int *col, const double *val, double alpha, double *out, long long n, nestor::mp::state nestor_mp) {
  nestor::mp::merge_rows<double>(nestor_mp, offsets, n, [=](long long j) { return val[j] * col[j]; }, nestor::op::max{},
      // fused: 'scaled_row_max' for row nestor_q, its loop's value nestor_v (run here when its grid has
      // one thread per row; the rows that span blocks are finished last, in block order)
      [&](long long nestor_q, double nestor_v) {
        long long row = static_cast<long long>(nestor_q);
        if (row < n) {
          double best = -1e300;
          best = nestor::op::max{}(best, nestor_v);
          out[row] = alpha * best;
        }
      });
}

__global__ void scaled_row_max(const long long *offsets, const int *col, const double *val, double alpha, double *out,
                               long long n, nestor::mp::state nestor_mp = {}) {
  long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    double best = -1e300;
    // merge-path: the row's value from scaled_row_max_nestor_merge, which split the iterations evenly
    // over its blocks (reassociated); the loop as written runs without the merge pass.
    if (nestor_mp.ready())
      best = nestor::op::max{}(best, nestor_mp.row_result<double>(offsets[row], offsets[row + 1], row, nestor::op::max{}, offsets[0]));
    else
      for (long long j = offsets[row]; j < offsets[row + 1]; ++j)
        best = max(best, val[j] * col[j]);
    out[row] = alpha * best;
  }
}

void run(const long long *offsets, const int *col, const double *val, double *out, long long n) {
  dim3 block(256);
  nestor::mp::launch<double>(n, dim3((unsigned)((n + 255) / 256)), dim3(block), scaled_row_max_nestor_merge, [&](nestor::mp::state nestor_s, int nestor_grid) {
    scaled_row_max_nestor_merge<<<nestor_grid, nestor::mp::kBlock>>>(offsets, col, val, 2.0, out, n, nestor_s);
  }, [&](nestor::mp::state nestor_s, dim3 nestor_g, dim3 nestor_b) {
    scaled_row_max<<<nestor_g, nestor_b>>>(offsets, col, val, 2.0, out, n, nestor_s);
  });
}
