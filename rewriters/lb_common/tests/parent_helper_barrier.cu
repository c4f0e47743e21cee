// A parent whose barrier is in a helper it calls, after an early return:
// dbuf-shared-launch and dpar-opt-launch follow the parent's body with a block
// phase that has barriers of its own, which the threads that returned early
// would pair with the helper's (rewriters/lb_common/tests/family.cmake).
__device__ void publish_tile(unsigned *tile, unsigned value) {
  tile[threadIdx.x] = value;
  __syncthreads();
}

__global__ void add_ones(float *out, unsigned first, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[first + i] += 1.0f;
}

__global__ void tile_parent(const unsigned *off, float *out, unsigned rows) {
  __shared__ unsigned tile[128];
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  publish_tile(tile, r < rows ? off[r] : 0u);
  if (r >= rows) return;
  add_ones<<<(off[r + 1] - tile[threadIdx.x] + 63) / 64, 64>>>(out, tile[threadIdx.x], off[r + 1] - off[r]); /*^*/
}

int main() {
  tile_parent<<<1, 128>>>(nullptr, nullptr, 0);
  return 0;
}
