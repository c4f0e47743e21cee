// lb_threshold against the launch's useful work (issue #21): SSSP launches
// one 128-thread block of which `degree` threads work, TC 1024-thread blocks
// of which `count` do. The launch templates compare the useful count (the
// child's guard, its argument at the launch) with lb_threshold, not grid x
// block (tests/rewrite/templates.cmake).
#include <cuda_runtime.h>

__global__ void relax(const int *dst, int *dist, int base, int degree, int d) {
  if (threadIdx.x < degree) atomicMin(&dist[dst[base + threadIdx.x]], d + 1);
}

__global__ void sssp_step(const int *offsets, const int *dst, int *dist, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int degree = offsets[v + 1] - offsets[v];
  if (degree > 0) relax<<<1, 128>>>(dst, dist, offsets[v], degree, dist[v]); /*^sssp*/
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
    if (count > 0) count_common<<<1, 1024>>>(adj + offsets[v], adj, out, count); /*^tc*/
  }
}

void run(const int *offsets, const int *dst, int *dist, int *out, int n) {
  sssp_step<<<(n + 255) / 256, 256>>>(offsets, dst, dist, n);
  triangles<<<(n + 255) / 256, 256>>>(offsets, dst, out, n);
}
