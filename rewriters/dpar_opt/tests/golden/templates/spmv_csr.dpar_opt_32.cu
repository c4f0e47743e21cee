// CSR SpMV, one thread per row (the CTE paper's 1D baseline): the loop trip
// count is the row length, irregular on power-law matrices.
#include "loops_harness.cuh"
#include <nestor/templates.cuh>

// The body of 'spmv_csr' for the dpar-opt template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void spmv_csr_nestor_body(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  // dpar-opt ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
  // trip count is 32 or more, or hands back its block-computed reduction.
  if (nestor_phase.defer(rowptr[row], rowptr[row + 1])) return;
  if (nestor_phase.has_result()) sum = nestor::op::add{}(sum, nestor_phase.template result<float>());
  else
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j)
      sum += val[j] * x[col[j]];
  y[row] = sum;
}

// The child of dpar-opt: one block per delayed row of a parent block, which it reduces and finishes.
__global__ void spmv_csr_nestor_dpar_child(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows, nestor::tmpl::dpar_batch<int> nestor_batch) {
  nestor::tmpl::dpar_opt_child<float>(nestor_batch, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    spmv_csr_nestor_body(rowptr, col, val, x, y, rows, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
}

__global__ void spmv_csr(const int *rowptr, const int *col, const float *val, const float *x, float *y, int rows) {
  // dpar-opt, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): rows whose loop
  // has 32 or more iterations are delayed to a per-block buffer; thread 0 then launches ONE child
  // grid for the block's buffer (CDP2: nobody waits for it; the child finishes those rows).
  nestor::tmpl::dpar_opt<int, float>(32, [=](int j) { return val[j] * x[col[j]]; }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    spmv_csr_nestor_body(rowptr, col, val, x, y, rows, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  },
  [&](nestor::tmpl::dpar_batch<int> nestor_batch) {
#if defined(__CUDACC_RDC__) // without -rdc the block processes its rows itself
    spmv_csr_nestor_dpar_child<<<nestor_batch.count, nestor::tmpl::kBlockMappedThreads>>>(rowptr, col, val, x, y, rows, nestor_batch);
#endif
  });
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
  loops::timed(args, bytes, [&] { spmv_csr<<<(rows + 31) / 32, 32>>>(rp, ci, v, x, y, rows); });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  return 0;
}
