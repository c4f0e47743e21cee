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

// relax with its thread identity as parameters (dbuf-global-launch): run by the parent thread
// or by relax_nestor_drain for delayed launches.
__device__ __forceinline__ void relax_nestor_thread(const int *dst, int *dist, int base, int degree, int d, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  if (threadIdx.x < degree) atomicMin(&dist[dst[base + threadIdx.x]], d + 1);
}

// A delayed launch of relax: its arguments and configuration.
struct relax_nestor_launch {
  const int *dst;
  int *dist;
  int base;
  int degree;
  int d;
  dim3 nestor_grid, nestor_block;
};

// The pass over delayed launches ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, dbuf-global): block-mapped,
// one block per launch striding over its child threads.
__global__ void relax_nestor_drain(nestor::tmpl::launch_queue<relax_nestor_launch> nestor_lq, bool nestor_block_mapped) {
  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, [](const relax_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    relax_nestor_thread(a.dst, a.dist, a.base, a.degree, a.d, t, b, bd, gd);
  });
}

__global__ void sssp_step(const int *offsets, const int *dst, int *dist, int n, nestor::tmpl::launch_queues<relax_nestor_launch> nestor_lq = {}) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int degree = offsets[v + 1] - offsets[v];
  if (degree > 0) {
    // dbuf-global, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: a launch of
    // fewer than 64 threads runs in this thread; a larger one is delayed to relax_nestor_drain,
    // which runs after this grid (CDP2 gives no earlier guarantee either).
    const dim3 nestor_grid(1), nestor_block(128);
    relax_nestor_launch nestor_item;
    nestor_item.dst = dst;
    nestor_item.dist = dist;
    nestor_item.base = offsets[v];
    nestor_item.degree = degree;
    nestor_item.d = dist[v];
    nestor_item.nestor_grid = nestor_grid;
    nestor_item.nestor_block = nestor_block;
    if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 64ull ||
         (unsigned long long)(degree) < 64ull) ||
        !nestor::tmpl::push_launch(nestor_lq.large, nestor_item))
      nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
          [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
        relax_nestor_thread(dst, dist, offsets[v], degree, dist[v], nestor_t, nestor_b, nestor_bd, nestor_gd);
      });
  }
}

__global__ void count_common(const int *a, const int *b, int *out, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  if (a[i] == b[i]) atomicAdd(out, 1);
}

__global__ void triangles(const int *offsets, const int *adj, int *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    const int count = offsets[v + 1] - offsets[v];
    if (count > 0) count_common<<<1, 1024>>>(adj + offsets[v], adj, out, count);
  }
}

void run(const int *offsets, const int *dst, int *dist, int *out, int n) {
  nestor::tmpl::launch_promoted<relax_nestor_launch>((n + 255) / 256, 256, false,
      [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queues<relax_nestor_launch> nestor_lq) {
        sssp_step<<<nestor_g, nestor_b, 0>>>(offsets, dst, dist, n, nestor_lq);
      },
      [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queue<relax_nestor_launch> nestor_q, bool nestor_block_mapped) {
        relax_nestor_drain<<<nestor_g, nestor_b>>>(nestor_q, nestor_block_mapped);
      });
  triangles<<<(n + 255) / 256, 256>>>(offsets, dst, out, n);
}
