// An L1 row normalisation over CSR: a sum loop, then a loop over the same row
// again that writes every entry. merge-path splits the first loop; the
// second must run in the row pass, one thread per row as written (fused into
// the merge kernel it would leave each block waiting for its longest row).
// Runnable twin of rewriters/merge_path/tests/not_fused_loop.cu;
// tests/gpu/merge_path runs its golden against it.
#include "loops_harness.cuh"
#include <nestor/merge_path.cuh>

// merge-path (Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16):
// the iterations of the loop at line 13 for rows 0 .. n - 1, split evenly (rows + iterations) over the
// blocks of a persistent grid; each row's value goes to 'normalize_rows', which combines it in a fixed order.
// Not fused (the row pass runs 'normalize_rows' after it): the loop at line 16 would run per row inside the merge kernel, whose blocks wait for their longest row.
__global__ void __launch_bounds__(nestor::mp::kBlock, nestor::mp::kMinBlocks) normalize_rows_nestor_merge(int n, const int *rowptr, const float *val, float *out, nestor::mp::state nestor_mp) {
  nestor::mp::merge_rows<float>(nestor_mp, rowptr, n, [=](int e) { return fabsf(val[e]); }, nestor::op::add{});
}

__global__ void normalize_rows(int n, const int *rowptr, const float *val, float *out, nestor::mp::state nestor_mp = {}) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float s = 0.0f;
    // merge-path: the row's value from normalize_rows_nestor_merge, which split the iterations evenly
    // over its blocks (reassociated); the loop as written runs without the merge pass.
    if (nestor_mp.ready())
      s = nestor::op::add{}(s, nestor_mp.row_result<float>(rowptr[r], rowptr[r + 1], r, nestor::op::add{}, rowptr[0]));
    else
      for (int e = rowptr[r]; e < rowptr[r + 1]; ++e)
        s += fabsf(val[e]);
    float inv = s > 0.0f ? 1.0f / s : 0.0f;
    for (int e = rowptr[r]; e < rowptr[r + 1]; ++e) out[e] = val[e] * inv;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 20000)), avg = int(args.get("avg", 16));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(rows, rows, avg, powerlaw, unsigned(args.get("seed", 11)));
  int *rp = loops::to_device(a.rowptr);
  float *v = loops::to_device(a.val);
  float *out = loops::device_zeros<float>(a.val.size() + 1);
  loops::timed(args, 12.0 * a.val.size() + 8.0 * rows, [&] { nestor::mp::launch<float>(rows, normalize_rows_nestor_merge, [&](nestor::mp::state nestor_s, int nestor_grid) {
    normalize_rows_nestor_merge<<<nestor_grid, nestor::mp::kBlock>>>(rows, rp, v, out, nestor_s);
  }, [&](nestor::mp::state nestor_s) {
    normalize_rows<<<(rows + 127) / 128, 128>>>(rows, rp, v, out, nestor_s);
  }); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, a.val.size() + 1));
  return 0;
}
