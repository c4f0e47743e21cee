// merge-path applies to the first loop (an L1 norm of each row), but the rest
// of the kernel loops over the row again (scaling it): replayed per row in the
// merge kernel, that loop would leave the block waiting for its longest row,
// so the row pass runs it, one thread per row as written (compile check only).
#include <cuda_runtime.h>
#include <nestor/merge_path.cuh>

// merge-path (Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16):
// the iterations of the loop at line 11 for rows 0 .. n - 1, split evenly (rows + iterations) over the
// blocks of a persistent grid; each row's value goes to 'normalize_rows', which combines it in a fixed order.
// Not fused (the row pass runs 'normalize_rows' after it): the loop at line 14 would run per row inside the merge kernel, whose blocks wait for their longest row.
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

void normalize(int n, const int *rowptr, const float *val, float *out) {
  nestor::mp::launch<float>(n, normalize_rows_nestor_merge, [&](nestor::mp::state nestor_s, int nestor_grid) {
    normalize_rows_nestor_merge<<<nestor_grid, nestor::mp::kBlock>>>(n, rowptr, val, out, nestor_s);
  }, [&](nestor::mp::state nestor_s) {
    normalize_rows<<<(n + 127) / 128, 128>>>(n, rowptr, val, out, nestor_s);
  });
}
