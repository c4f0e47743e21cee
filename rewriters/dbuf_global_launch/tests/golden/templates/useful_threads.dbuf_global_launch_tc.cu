// lb_threshold against the launch's useful work (issue #21): SSSP launches
// one 128-thread block of which `degree` threads work, TC 1024-thread blocks
// of which `count` do. The launch templates compare the useful count (the
// child's guard, its argument at the launch) with lb_threshold, not grid x
// block (tests/rewrite/templates.cmake).
#include <cuda_runtime.h>
#include <nestor/promote.cuh>

__global__ void relax(const int *dst, int *dist, int base, int degree, int d) {
  if (threadIdx.x < degree) atomicMin(&dist[dst[base + threadIdx.x]], d + 1);
}

__global__ void sssp_step(const int *offsets, const int *dst, int *dist, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int degree = offsets[v + 1] - offsets[v];
  if (degree > 0) relax<<<1, 128>>>(dst, dist, offsets[v], degree, dist[v]);
}

__global__ void count_common(const int *a, const int *b, int *out, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  if (a[i] == b[i]) atomicAdd(out, 1);
}

// count_common with its thread identity as parameters (dbuf-global-launch): run by the parent thread
// or by count_common_nestor_drain for delayed launches.
__device__ __forceinline__ void count_common_nestor_thread(const int *a, const int *b, int *out, int count, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  if (a[i] == b[i]) atomicAdd(out, 1);
}

// A delayed launch of count_common: its arguments and configuration.
struct count_common_nestor_launch {
  const int *a;
  const int *b;
  int *out;
  int count;
  dim3 nestor_grid, nestor_block;
};

// The pass over delayed launches ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, dbuf-global): block-mapped,
// one block per launch striding over its child threads.
__global__ void count_common_nestor_drain(nestor::tmpl::launch_queue<count_common_nestor_launch> nestor_lq, bool nestor_block_mapped) {
  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, [](const count_common_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    count_common_nestor_thread(a.a, a.b, a.out, a.count, t, b, bd, gd);
  });
}

__global__ void triangles(const int *offsets, const int *adj, int *out, int n, nestor::tmpl::launch_queues<count_common_nestor_launch> nestor_lq = {}) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    const int count = offsets[v + 1] - offsets[v];
    if (count > 0) {
      // dbuf-global, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: a launch of
      // fewer than 64 threads runs in this thread; a larger one is delayed to count_common_nestor_drain,
      // which runs after this grid (CDP2 gives no earlier guarantee either).
      const dim3 nestor_grid(1), nestor_block(1024);
      count_common_nestor_launch nestor_item;
      nestor_item.a = adj + offsets[v];
      nestor_item.b = adj;
      nestor_item.out = out;
      nestor_item.count = count;
      nestor_item.nestor_grid = nestor_grid;
      nestor_item.nestor_block = nestor_block;
      if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 64ull ||
           (unsigned long long)(count) < 64ull) ||
          !nestor::tmpl::push_launch(nestor_lq.large, nestor_item))
        nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
            [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
          count_common_nestor_thread(adj + offsets[v], adj, out, count, nestor_t, nestor_b, nestor_bd, nestor_gd);
        });
    }
  }
}

void run(const int *offsets, const int *dst, int *dist, int *out, int n) {
  sssp_step<<<(n + 255) / 256, 256>>>(offsets, dst, dist, n);
  nestor::tmpl::launch_promoted<count_common_nestor_launch>((n + 255) / 256, 256, false,
      [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queues<count_common_nestor_launch> nestor_lq) {
        triangles<<<nestor_g, nestor_b, 0>>>(offsets, dst, out, n, nestor_lq);
      },
      [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queue<count_common_nestor_launch> nestor_q, bool nestor_block_mapped) {
        count_common_nestor_drain<<<nestor_g, nestor_b>>>(nestor_q, nestor_block_mapped);
      });
}
