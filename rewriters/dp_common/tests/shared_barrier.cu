// A child that uses __shared__ and __syncthreads: not serialisable (threshold
// refuses); aggregated with its constant block, every barrier is reached by
// whole blocks; coarsening keeps the barriers legal and separates the
// coarsened blocks with one.
__global__ void tile_sum(const float* in, float* out, unsigned n) {
  __shared__ float tile[128];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (unsigned k = 0; k < blockDim.x; ++k) s += tile[k];
    atomicAdd(out, s);
  }
}

__global__ void rows_parent(const float* in, float* out, const unsigned* len, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && len[r] > 0) tile_sum<<<(len[r] + 127) / 128, 128>>>(in + r * 4096, out + r, len[r]); /*^*/
}

int main() {
  rows_parent<<<1, 32>>>(nullptr, nullptr, nullptr, 0);
  return 0;
}
