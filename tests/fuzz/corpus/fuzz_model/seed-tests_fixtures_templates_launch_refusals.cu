// Device launches that dbuf-global-launch refuses, each with the construct
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
  if (r < rows) tile_child<<<(off[r + 1] - off[r] + 127) / 128, 128>>>(in + off[r], out + off[r], off[r + 1] - off[r]);
}

__global__ void add_child(float *out, unsigned first, unsigned count) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[first + i] += 1.0f;
}
// The launch sits in a loop: a thread would delay several launches.
__global__ void loop_parent(const unsigned *off, float *out, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned k = 0; k < 2 && r < rows; ++k)
    add_child<<<(off[r + 1] - off[r] + 63) / 64, 64>>>(out, off[r], off[r + 1] - off[r]);
}
// The parent uses the device runtime elsewhere: -rdc would stay.
__global__ void runtime_parent(const unsigned *off, float *out, unsigned rows, int *err) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (cudaPeekAtLastError() != cudaSuccess) *err = 1;
  if (r < rows) add_child<<<(off[r + 1] - off[r] + 63) / 64, 64>>>(out, off[r], off[r + 1] - off[r]);
}

void host(const unsigned *off, const float *in, float *out, unsigned rows, int *err) {
  tile_parent<<<(rows + 127) / 128, 128>>>(off, in, out, rows);
  loop_parent<<<(rows + 127) / 128, 128>>>(off, out, rows);
  runtime_parent<<<(rows + 127) / 128, 128>>>(off, out, rows, err);
}
