#include <cuda_runtime.h>
#include <nestor/delayed_launches.cuh>
__global__ void add_one(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1.0f;
}

// add_one with its thread identity as parameters (dpar-opt-launch): run by the parent thread
// or by add_one_nestor_dpar for delayed launches.
__device__ __forceinline__ void add_one_nestor_thread(float *v, int n, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1.0f;
}

// A delayed launch of add_one: its arguments and configuration.
struct add_one_nestor_launch {
  float *v;
  int n;
  dim3 nestor_grid, nestor_block;
};

// The child of dpar-opt ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): one launch per
// parent block; block k runs the block's delayed launch k, its threads striding over the child threads.
__global__ void add_one_nestor_dpar(nestor::tmpl::launch_batch<add_one_nestor_launch> nestor_batch) {
  nestor::tmpl::run_launch_batch(nestor_batch, [](const add_one_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    add_one_nestor_thread(a.v, a.n, t, b, bd, gd);
  });
}

// A child kernel directly after the #include line (issue #21): the runtime
// include and the code every DP rewrite and launch template puts before or
// after the child share an offset. Every offered rewrite applies
// (tests/rewrite/edits.cmake).
// The body of rows_parent for dpar-opt-launch: a large launch is held in nestor_held, which
// rows_parent's block launches after every thread has left this body.
__device__ __forceinline__ void rows_parent_nestor_body(float *v, const int *offsets, int rows, nestor::tmpl::held_launch<add_one_nestor_launch> &nestor_held) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int len = offsets[r + 1] - offsets[r];
    if (len > 0) {
      // dpar-opt, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): a launch of fewer than 64 threads
      // runs in this thread; a larger one is held, and this block makes one device launch for all of them
      // after the parent body.
      const dim3 nestor_grid((len + 127) / 128), nestor_block(128);
      add_one_nestor_launch nestor_item;
      nestor_item.v = v + offsets[r];
      nestor_item.n = len;
      nestor_item.nestor_grid = nestor_grid;
      nestor_item.nestor_block = nestor_block;
      if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 64ull ||
           (unsigned long long)(len) < 64ull) ||
          !nestor_held.hold(nestor_item))
        nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
            [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
          add_one_nestor_thread(v + offsets[r], len, nestor_t, nestor_b, nestor_bd, nestor_gd);
        });
    }
  }
}

__global__ void rows_parent(float *v, const int *offsets, int rows) {
  // dpar-opt, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): the body runs launches of add_one
  // below 64 threads in their thread and holds larger ones; then thread 0 makes one device launch of
  // add_one_nestor_dpar for all of them (CDP2: the parent never waits; the child grid completes before
  // the parent grid, as the original children did). Without -rdc the block runs them itself.
  nestor::tmpl::held_launch<add_one_nestor_launch> nestor_held;
  rows_parent_nestor_body(v, offsets, rows, nestor_held);
  nestor::tmpl::dpar_opt_launches(nestor_held, [](const add_one_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    add_one_nestor_thread(a.v, a.n, t, b, bd, gd);
  },
  [](const nestor::tmpl::launch_batch<add_one_nestor_launch> &nestor_batch) {
#if defined(__CUDACC_RDC__) // without -rdc the block runs the held launches itself
    add_one_nestor_dpar<<<nestor_batch.count, nestor::tmpl::kBatchThreads>>>(nestor_batch);
#endif
  });
}

void run(float *v, const int *offsets, int rows) {
  rows_parent<<<(rows + 255) / 256, 256>>>(v, offsets, rows);
  cudaDeviceSynchronize();
}
