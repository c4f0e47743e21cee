// lb_threshold against the launch's useful work (issue #21): SSSP launches
// one 128-thread block of which `degree` threads work, TC 1024-thread blocks
// of which `count` do. The launch templates compare the useful count (the
// child's guard, its argument at the launch) with lb_threshold, not grid x
// block (tests/rewrite/templates.cmake).
#include <cuda_runtime.h>
#include <nestor/delayed_launches.cuh>

__global__ void relax(const int *dst, int *dist, int base, int degree, int d) {
  if (threadIdx.x < degree) atomicMin(&dist[dst[base + threadIdx.x]], d + 1);
}

// relax with its thread identity as parameters (dbuf-shared-launch): run by the parent thread
// or by the parent's block for delayed launches.
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

// The body of sssp_step for dbuf-shared-launch: a large launch is held in nestor_held, which
// sssp_step's block runs after every thread has left this body.
__device__ __forceinline__ void sssp_step_nestor_body(const int *offsets, const int *dst, int *dist, int n, nestor::tmpl::held_launch<relax_nestor_launch> &nestor_held) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int degree = offsets[v + 1] - offsets[v];
  if (degree > 0) {
    // dbuf-shared, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: a launch of
    // fewer than 64 threads runs in this thread; a larger one is held, and this block runs it after
    // the parent body (CDP2 gives no earlier guarantee either).
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
        !nestor_held.hold(nestor_item))
      nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
          [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
        relax_nestor_thread(dst, dist, offsets[v], degree, dist[v], nestor_t, nestor_b, nestor_bd, nestor_gd);
      });
  }
}

__global__ void sssp_step(const int *offsets, const int *dst, int *dist, int n) {
  // dbuf-shared, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(b)): the body runs launches of relax
  // below 64 threads in their thread and holds larger ones; then the whole block runs the held launches,
  // one after another, its threads striding over each launch's child threads (a buffer in shared
  // memory, an overflow on the device heap). No dynamic parallelism is left.
  nestor::tmpl::held_launch<relax_nestor_launch> nestor_held;
  sssp_step_nestor_body(offsets, dst, dist, n, nestor_held);
  nestor::tmpl::dbuf_shared_launches(nestor_held, [](const relax_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    relax_nestor_thread(a.dst, a.dist, a.base, a.degree, a.d, t, b, bd, gd);
  });
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
  sssp_step<<<(n + 255) / 256, 256>>>(offsets, dst, dist, n);
  triangles<<<(n + 255) / 256, 256>>>(offsets, dst, out, n);
}
