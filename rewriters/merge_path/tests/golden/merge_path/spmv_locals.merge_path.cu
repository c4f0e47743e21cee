// CSR SpMV as Li, Wu and Becchi write it (one thread per row, the row's
// bounds held in locals): merge-path sees through `start` and `end`
// (nestor/DefUse.h). tests/rewrite/merge_path.cmake, tests/gpu/merge_path.
#include "loops_harness.cuh"
#include <nestor/merge_path.cuh>

// merge-path (Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16):
// the iterations of the loop at line 12 for rows 0 .. n - 1, split evenly (rows + iterations) over the
// blocks of a persistent grid; each row's value goes to 'spmv_locals', which combines it in a fixed order.
__global__ void __launch_bounds__(nestor::mp::kBlock, nestor::mp::kMinBlocks) spmv_locals_nestor_merge(const int *ptr, const int *idx, const float *val, const float *x, float *y, int n, nestor::mp::state nestor_mp) {
  nestor::mp::merge_rows<float>(nestor_mp, ptr, n, [=](int i) { return val[i] * x[idx[i]]; }, nestor::op::add{},
      // fused: 'spmv_locals' for row nestor_q, its loop's value nestor_v (run here when its grid has
      // one thread per row; the rows that span blocks are finished last, in block order)
      [&](long long nestor_q, float nestor_v) {
        int row = static_cast<int>(nestor_q);
        if (row < n) {
          int start = ptr[row];
          int end = ptr[row + 1];
          float sum = 0.0f;
          sum = nestor::op::add{}(sum, nestor_v);
          y[row] = sum;
        }
      });
}

__global__ void spmv_locals(const int *ptr, const int *idx, const float *val, const float *x, float *y, int n, nestor::mp::state nestor_mp = {}) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    int start = ptr[row];
    int end = ptr[row + 1];
    float sum = 0.0f;
    // merge-path: the row's value from spmv_locals_nestor_merge, which split the iterations evenly
    // over its blocks (reassociated); the loop as written runs without the merge pass.
    if (nestor_mp.ready())
      sum = nestor::op::add{}(sum, nestor_mp.row_result<float>(start, end, row, nestor::op::add{}, ptr[0]));
    else
      for (int i = start; i < end; ++i)
        sum += val[i] * x[idx[i]];
    y[row] = sum;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 20000)), avg = int(args.get("avg", 16));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(rows, rows, avg, powerlaw, unsigned(args.get("seed", 7)));
  int *rp = loops::to_device(a.rowptr), *ci = loops::to_device(a.col);
  float *v = loops::to_device(a.val), *x = loops::to_device(loops::random_floats(size_t(rows), 8));
  float *y = loops::device_zeros<float>(size_t(rows));
  const double bytes = 8.0 * a.val.size() + 4.0 * a.val.size() + 12.0 * rows;
  loops::timed(args, bytes, [&] { nestor::mp::launch<float>(rows, dim3((rows + 127) / 128), dim3(128), spmv_locals_nestor_merge, [&](nestor::mp::state nestor_s, int nestor_grid) {
    spmv_locals_nestor_merge<<<nestor_grid, nestor::mp::kBlock>>>(rp, ci, v, x, y, rows, nestor_s);
  }, [&](nestor::mp::state nestor_s, dim3 nestor_g, dim3 nestor_b) {
    spmv_locals<<<nestor_g, nestor_b>>>(rp, ci, v, x, y, rows, nestor_s);
  }); });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  return 0;
}
