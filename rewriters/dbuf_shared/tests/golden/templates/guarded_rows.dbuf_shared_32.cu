// CSR row sums of the active rows only: the row loop is the branch of an
// `if` without braces. A rewrite that puts several statements where the loop
// was must brace them, or the inactive rows would run the loop too (the
// load-balancing templates did, before 2026-11-29).
#include "loops_harness.cuh"
#include <nestor/templates.cuh>

// The body of 'guarded_rows' for the dbuf-shared template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void guarded_rows_nestor_body(const int *rowptr, const float *val, const int *active, float *y, int rows, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  if (active[row])
    {
    // dbuf-shared ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
    // trip count is 32 or more, or hands back its block-computed reduction.
    if (nestor_phase.defer(rowptr[row], rowptr[row + 1])) return;
    if (nestor_phase.has_result()) sum = nestor::op::add{}(sum, nestor_phase.template result<float>());
    else
      for (int j = rowptr[row]; j < rowptr[row + 1]; ++j) sum += val[j];
    }
  y[row] = sum;
}

__global__ void guarded_rows(const int *rowptr, const float *val, const int *active, float *y, int rows) {
  // dbuf-shared, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(c)): rows whose loop
  // has 32 or more iterations are delayed to a per-block buffer in shared memory (128 slots, then a
  // global overflow), reduced by the whole block after the thread-mapped pass, and finished by their owner.
  nestor::tmpl::dbuf_shared<int, float, 128>(32, [=](int j) { return val[j]; }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    guarded_rows_nestor_body(rowptr, val, active, y, rows, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 20000)), avg = int(args.get("avg", 16));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(rows, rows, avg, powerlaw, unsigned(args.get("seed", 11)));
  // About two rows in three are active, picked by a hash of the row.
  std::vector<int> active(static_cast<size_t>(rows));
  for (int r = 0; r < rows; ++r) active[size_t(r)] = ((unsigned(r) * 2654435761u) >> 16) % 3 != 0;
  int *rp = loops::to_device(a.rowptr), *act = loops::to_device(active);
  float *v = loops::to_device(a.val);
  float *y = loops::device_zeros<float>(size_t(rows));
  const double bytes = 8.0 * a.val.size() + 12.0 * rows;
  loops::timed(args, bytes, [&] { guarded_rows<<<(rows + 127) / 128, 128>>>(rp, v, act, y, rows); });
  loops::ResultFile res(args);
  res.add(loops::from_device(y, size_t(rows)));
  return 0;
}
