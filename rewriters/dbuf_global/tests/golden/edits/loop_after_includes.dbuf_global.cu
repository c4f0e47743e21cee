#include <cuda_runtime.h>
#include <nestor/templates.cuh>
// The body of 'row_sums' for the dbuf-global template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void row_sums_nestor_body(const int *rowptr, const float *val, float *out, int rows, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  // dbuf-global ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
  // trip count is 64 or more, or hands back its block-computed reduction.
  if (nestor_phase.defer(rowptr[row], rowptr[row + 1])) return;
  if (nestor_phase.has_result()) sum = nestor::op::add{}(sum, nestor_phase.template result<float>());
  else
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j) sum += val[j];
  out[row] = sum;
}

__global__ void row_sums(const int *rowptr, const float *val, float *out, int rows, nestor::tmpl::launch_state nestor_ls = {}) {
  // dbuf-global, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(c)): the thread-mapped
  // pass delays rows with 64 or more iterations to a global buffer; a second, block-mapped launch
  // reduces each and finishes its row (nestor::tmpl::launch_templates at the launch).
  nestor::tmpl::dispatch<float>(nestor_ls, [=](int j) { return val[j]; }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    row_sums_nestor_body(rowptr, val, out, rows, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
}
// A kernel directly after the #include line, nothing between (issue #21): the
// runtime include and the code a template puts before the kernel go to one
// offset, which clang's Replacements rejected ("The new insertion has the same
// insert location as an existing replacement"). Every offered rewrite applies
// (tests/rewrite/edits.cmake; the all-offers test applies every variant).

void row_sums_host(const int *rowptr, const float *val, float *out, int rows) {
  nestor::tmpl::launch_templates(false, (rows + 255) / 256, 256, 0, 64, [&](dim3 nestor_g, dim3 nestor_b, size_t nestor_sh, const nestor::tmpl::launch_state &nestor_ls) {
    row_sums<<<nestor_g, nestor_b, nestor_sh>>>(rowptr, val, out, rows, nestor_ls);
  });
}
