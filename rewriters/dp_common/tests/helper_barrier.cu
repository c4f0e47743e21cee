// A child whose barrier is in a __device__ helper it calls: the child's
// threads cannot run one after another in another thread (threshold and the
// launch templates refuse, naming the helper's barrier and its line).
__device__ void stage_barrier() { __syncthreads(); }

__global__ void pair_sum(float *x, unsigned first, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[first + i] *= 2.0f;
  stage_barrier();
  if (i < n) x[first + i] += x[first + (i + 1) % n];
}

__global__ void pair_rows(float *x, const unsigned *row, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && row[r + 1] > row[r])
    pair_sum<<<(row[r + 1] - row[r] + 31) / 32, 32>>>(x, row[r], row[r + 1] - row[r]); /*^*/
}

int main() {
  pair_rows<<<1, 32>>>(nullptr, nullptr, 0);
  return 0;
}
