// merge-path applies to both kernels, but neither epilogue can be replayed
// for its row by another thread, so the row pass finishes the rows
// (tests/rewrite/merge_path.cmake, compile checks only):
//   spmv_lane_stats  the epilogue calls a helper that reads threadIdx;
//   spmv_mark_end    the guard has an else branch: a thread without a row
//                    (the one just past the last) writes memory.
#include <cuda_runtime.h>
#include <nestor/merge_path.cuh>

__device__ void store_with_lane(float *y, int *lane, int row, float v) {
  y[row] = v;
  lane[row] = int(threadIdx.x & 31u);
}

// merge-path (Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16):
// the iterations of the loop at line 19 for rows 0 .. rows - 1, split evenly (rows + iterations) over the
// blocks of a persistent grid; each row's value goes to 'spmv_lane_stats', which combines it in a fixed order.
// Not fused (the row pass runs 'spmv_lane_stats' after it): the statement at line 21 calls 'store_with_lane', which reads threadIdx.
__global__ void __launch_bounds__(nestor::mp::kBlock, nestor::mp::kMinBlocks) spmv_lane_stats_nestor_merge(const int *rowptr, const int *col, const float *val, const float *x, float *y, int *lane, int rows, nestor::mp::state nestor_mp) {
  nestor::mp::merge_rows<float>(nestor_mp, rowptr, rows, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{});
}

__global__ void spmv_lane_stats(const int *rowptr, const int *col, const float *val, const float *x, float *y, int *lane,
                                int rows, nestor::mp::state nestor_mp = {}) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  // merge-path: the row's value from spmv_lane_stats_nestor_merge, which split the iterations evenly
  // over its blocks (reassociated); the loop as written runs without the merge pass.
  if (nestor_mp.ready())
    sum = nestor::op::add{}(sum, nestor_mp.row_result<float>(rowptr[row], rowptr[row + 1], row, nestor::op::add{}, rowptr[0]));
  else
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j)
      sum += val[j] * x[col[j]];
  store_with_lane(y, lane, row, sum);
}

__global__ void spmv_mark_end(const int *rowptr, const int *col, const float *val, const float *x, float *y, int *done,
                              int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j)
      sum += val[j] * x[col[j]];
    y[row] = sum;
  } else if (row == rows) {
    *done = 1;
  }
}

void run(const int *rowptr, const int *col, const float *val, const float *x, float *y, int *lane, int *done, int rows) {
  nestor::mp::launch<float>(rows, spmv_lane_stats_nestor_merge, [&](nestor::mp::state nestor_s, int nestor_grid) {
    spmv_lane_stats_nestor_merge<<<nestor_grid, nestor::mp::kBlock>>>(rowptr, col, val, x, y, lane, rows, nestor_s);
  }, [&](nestor::mp::state nestor_s) {
    spmv_lane_stats<<<(rows + 127) / 128, 128>>>(rowptr, col, val, x, y, lane, rows, nestor_s);
  });
  spmv_mark_end<<<rows / 128 + 1, 128>>>(rowptr, col, val, x, y, done, rows);
}
