// A parent that waits for its child on the device with cudaDeviceSynchronize,
// removed in CUDA 12 (CDP2) for compute_90: every DP rewrite refuses it.
__global__ void fill(int* a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = 1;
}

__global__ void waits_for_child(int* a, unsigned n, int* total) {
  if (threadIdx.x == 0) {
    fill<<<(n + 255) / 256, 256>>>(a, n); /*^*/
    cudaDeviceSynchronize();
    int s = 0;
    for (unsigned i = 0; i < n; ++i) s += a[i];
    *total = s;
  }
}

int main() {
  waits_for_child<<<1, 32>>>(nullptr, 0, nullptr);
  return 0;
}
