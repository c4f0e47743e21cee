// One thread per row with its CSR bounds in locals, as Li, Wu and Becchi's own
// SpMV is written (issue #21, "match meaning, not spelling"): the locals are
// seen through (nestor/DefUse.h), so the templates apply; a bound written
// again after its declaration, or whose address is taken, is not seen through
// (tests/rewrite/templates.cmake).
#include <cuda_runtime.h>
#include <nestor/templates.cuh>

__device__ void clamp_end(int *end, int start) {
  if (*end - start > 4096) *end = start + 4096;
}

// The body of 'spmv_locals' for the dbuf-global template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void spmv_locals_nestor_body(const int *ptr, const int *indices, const float *data, const float *x, float *y, int rows, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < rows) {
    float sum = 0.0f;
    int start = ptr[tid];
    int end = ptr[tid + 1];
    // dbuf-global ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
    // trip count is 64 or more, or hands back its block-computed reduction.
    if (nestor_phase.defer(start, end)) return;
    if (nestor_phase.has_result()) sum = nestor::op::add{}(sum, nestor_phase.template result<float>());
    else
      for (int i = start; i < end; ++i) sum += data[i] * x[indices[i]];
    y[tid] = sum;
  }
}

__global__ void spmv_locals(const int *ptr, const int *indices, const float *data, const float *x, float *y, int rows, nestor::tmpl::launch_state nestor_ls = {}) {
  // dbuf-global, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(c)): the thread-mapped
  // pass delays rows with 64 or more iterations to a global buffer; a second, block-mapped launch
  // reduces each and finishes its row (nestor::tmpl::launch_templates at the launch).
  nestor::tmpl::dispatch<float>(nestor_ls, [=](int i) { return data[i] * x[indices[i]]; }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    spmv_locals_nestor_body(ptr, indices, data, x, y, rows, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
}

// `end` is written again after its declaration: its value at the loop is not ptr[tid + 1].
__global__ void spmv_capped(const int *ptr, const float *data, float *y, int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= rows) return;
  int start = ptr[tid];
  int end = ptr[tid + 1];
  if (end - start > 4096) end = start + 4096;
  float sum = 0.0f;
  for (int i = start; i < end; ++i) sum += data[i];
  y[tid] = sum;
}

// `end`'s address is taken: a callee may write it.
__global__ void spmv_address_taken(const int *ptr, const float *data, float *y, int rows) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= rows) return;
  int start = ptr[tid];
  int end = ptr[tid + 1];
  clamp_end(&end, start);
  float sum = 0.0f;
  for (int i = start; i < end; ++i) sum += data[i];
  y[tid] = sum;
}

void spmv(const int *ptr, const int *indices, const float *data, const float *x, float *y, int rows) {
  nestor::tmpl::launch_templates(false, (rows + 255) / 256, 256, 0, 64, [&](dim3 nestor_g, dim3 nestor_b, size_t nestor_sh, const nestor::tmpl::launch_state &nestor_ls) {
    spmv_locals<<<nestor_g, nestor_b, nestor_sh>>>(ptr, indices, data, x, y, rows, nestor_ls);
  });
  spmv_capped<<<(rows + 255) / 256, 256>>>(ptr, data, y, rows);
  spmv_address_taken<<<(rows + 255) / 256, 256>>>(ptr, data, y, rows);
}
