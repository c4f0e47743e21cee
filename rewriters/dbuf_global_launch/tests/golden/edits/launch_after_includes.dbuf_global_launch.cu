#include <cuda_runtime.h>
#include <nestor/promote.cuh>
__global__ void add_one(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1.0f;
}

// add_one with its thread identity as parameters (dbuf-global-launch): run by the parent thread
// or by add_one_nestor_drain for delayed launches.
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

// The pass over delayed launches ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, dbuf-global): block-mapped,
// one block per launch striding over its child threads.
__global__ void add_one_nestor_drain(nestor::tmpl::launch_queue<add_one_nestor_launch> nestor_lq, bool nestor_block_mapped) {
  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, [](const add_one_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    add_one_nestor_thread(a.v, a.n, t, b, bd, gd);
  });
}

// A child kernel directly after the #include line (issue #21): the runtime
// include and the code every DP rewrite and launch template puts before or
// after the child share an offset. Every offered rewrite applies
// (tests/rewrite/edits.cmake).
__global__ void rows_parent(float *v, const int *offsets, int rows, nestor::tmpl::launch_queues<add_one_nestor_launch> nestor_lq = {}) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int len = offsets[r + 1] - offsets[r];
    if (len > 0) {
      // dbuf-global, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: a launch of
      // fewer than 64 threads runs in this thread; a larger one is delayed to add_one_nestor_drain,
      // which runs after this grid (CDP2 gives no earlier guarantee either).
      const dim3 nestor_grid((len + 127) / 128), nestor_block(128);
      add_one_nestor_launch nestor_item;
      nestor_item.v = v + offsets[r];
      nestor_item.n = len;
      nestor_item.nestor_grid = nestor_grid;
      nestor_item.nestor_block = nestor_block;
      if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 64ull ||
           (unsigned long long)(len) < 64ull) ||
          !nestor::tmpl::push_launch(nestor_lq.large, nestor_item))
        nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
            [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
          add_one_nestor_thread(v + offsets[r], len, nestor_t, nestor_b, nestor_bd, nestor_gd);
        });
    }
  }
}

void run(float *v, const int *offsets, int rows) {
  nestor::tmpl::launch_promoted<add_one_nestor_launch>((rows + 255) / 256, 256, false,
      [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queues<add_one_nestor_launch> nestor_lq) {
        rows_parent<<<nestor_g, nestor_b, 0>>>(v, offsets, rows, nestor_lq);
      },
      [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queue<add_one_nestor_launch> nestor_q, bool nestor_block_mapped) {
        add_one_nestor_drain<<<nestor_g, nestor_b>>>(nestor_q, nestor_block_mapped);
      });
  cudaDeviceSynchronize();
}
