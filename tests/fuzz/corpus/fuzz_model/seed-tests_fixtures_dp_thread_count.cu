// Child thread-count inference (thesis §3.1.3, Fig. 3.2) and serialisability.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void plain(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 0;
}

__global__ void uses_barrier(float *a, int n) {
  __shared__ float s[128];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[127 - threadIdx.x];
}

__global__ void uses_shuffle(float *a) { a[threadIdx.x] = __shfl_down_sync(0xffffffffu, a[threadIdx.x], 1); }

__global__ void uses_groups(float *a) {
  cg::thread_block b = cg::this_thread_block();
  b.sync();
  a[threadIdx.x] = 1;
}

__device__ void touch(float *a) { a[0] = 1; }
__global__ void recursive(float *a, int depth) {
  touch(a);
  if (depth > 0 && threadIdx.x == 0) recursive<<<1, 1>>>(a, depth - 1);
}

__global__ void parent(float *a, int n, int b) {
  if (threadIdx.x != 0) return;
  // (a) (N - 1) / b + 1
  // launch@+1: threads=n
  plain<<<(n - 1) / 128 + 1, 128>>>(a, n);
  // (b) (N + b - 1) / b
  // launch@+1: threads=n
  plain<<<(n + b - 1) / b, b>>>(a, n);
  // (c) N / b + (N % b == 0 ? 0 : 1)
  // launch@+1: threads=n
  plain<<<n / b + (n % b == 0 ? 0 : 1), b>>>(a, n);
  // (d) ceil((float)N / b)
  // launch@+1: threads=n
  plain<<<ceil((float)n / b), b>>>(a, n);
  // (e) ceil(N / (float)b)
  // launch@+1: threads="n * 2"
  plain<<<ceil(n * 2 / (float)b), b>>>(a, n);
  // Through intermediate variables.
  int total = n * 4;
  int blocks = (total + 255) / 256;
  // launch@+1: threads=total threads_how~=intermediate
  plain<<<blocks, 256>>>(a, total);
  // (f) dim3 with a ceiling division per dimension.
  dim3 grid((n + 15) / 16, (b + 15) / 16);
  // launch@+1: threads="n * b"
  plain<<<grid, dim3(16, 16)>>>(a, n);
  // One block: the block size.
  // launch@+1: threads=b serializable=true
  plain<<<1, b>>>(a, b);
  // launch@+1: serializable=false reasons~=__syncthreads reasons~=__shared__
  uses_barrier<<<1, 128>>>(a, n);
  // launch@+1: serializable=false reasons~=__shfl_down_sync
  uses_shuffle<<<1, 32>>>(a);
  // launch@+1: serializable=false reasons~=cooperative
  uses_groups<<<1, 32>>>(a);
  // launch@+1: serializable=false reasons~=recursive
  recursive<<<1, 1>>>(a, 3);
}
