// Device launches that the launch templates refuse, each with the construct
// and its line (tests/rewrite/templates.cmake).
#include <cuda_runtime.h>

// A child that needs a block of its own: __shared__ and a barrier.
__global__ void tile_child(const float *in, float *out, unsigned n) {
  __shared__ float tile[128];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}
__global__ void tile_parent(const unsigned *off, const float *in, float *out, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) tile_child<<<(off[r + 1] - off[r] + 127) / 128, 128>>>(in + off[r], out + off[r], off[r + 1] - off[r]); /*^child_shared*/
}

__global__ void add_child(float *out, unsigned first, unsigned count) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[first + i] += 1.0f;
}
// The launch sits in a loop: a thread would delay several launches.
__global__ void loop_parent(const unsigned *off, float *out, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned k = 0; k < 2 && r < rows; ++k)
    add_child<<<(off[r + 1] - off[r] + 63) / 64, 64>>>(out, off[r], off[r + 1] - off[r]); /*^in_loop*/
}
// The parent uses the device runtime elsewhere: -rdc would stay.
__global__ void runtime_parent(const unsigned *off, float *out, unsigned rows, int *err) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (cudaPeekAtLastError() != cudaSuccess) *err = 1;
  if (r < rows) add_child<<<(off[r + 1] - off[r] + 63) / 64, 64>>>(out, off[r], off[r + 1] - off[r]); /*^device_runtime*/
}

// A parent with a barrier: dbuf-shared-launch and dpar-opt-launch follow its
// body with a block phase that has barriers of its own.
__global__ void barrier_parent(const unsigned *off, float *out, unsigned rows) {
  __shared__ unsigned first[128];
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  first[threadIdx.x] = r < rows ? off[r] : 0;
  __syncthreads();
  if (r < rows) add_child<<<(off[r + 1] - first[threadIdx.x] + 63) / 64, 64>>>(out, first[threadIdx.x], off[r + 1] - off[r]); /*^parent_barrier*/
}
// A parent launched with dynamic shared memory: dbuf-shared-launch's static
// buffer could push the block over the limit (dpar-opt-launch applies).
__global__ void dynamic_shared_parent(const unsigned *off, float *out, unsigned rows) {
  extern __shared__ unsigned scratch[];
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  scratch[threadIdx.x] = r;
  if (r < rows) add_child<<<(off[r + 1] - off[r] + 63) / 64, 64>>>(out, off[r], off[r + 1] - off[r]); /*^dynamic_shared*/
}

void host(const unsigned *off, const float *in, float *out, unsigned rows, int *err) {
  tile_parent<<<(rows + 127) / 128, 128>>>(off, in, out, rows);
  loop_parent<<<(rows + 127) / 128, 128>>>(off, out, rows);
  runtime_parent<<<(rows + 127) / 128, 128>>>(off, out, rows, err);
  barrier_parent<<<(rows + 127) / 128, 128>>>(off, out, rows);
  dynamic_shared_parent<<<(rows + 127) / 128, 128, 128 * sizeof(unsigned)>>>(off, out, rows);
}
