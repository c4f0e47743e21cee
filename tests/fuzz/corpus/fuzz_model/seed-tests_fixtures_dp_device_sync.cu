// dp-device-sync: device-side cudaDeviceSynchronize is gone for compute_90+ (CDP2).
__global__ void child(int *a) { a[threadIdx.x] = 1; }

__global__ void parent(int *a) {
  if (threadIdx.x == 0) {
    // launch@+1: followed_by_device_sync=true
    child<<<1, 32>>>(a);
    // expect@+1: dp-device-sync "cudaStreamTailLaunch"
    cudaDeviceSynchronize();
  }
}

__device__ void helper(int *a) {
  // expect@+1: dp-device-sync
  cudaDeviceSynchronize();
  a[0] = 0;
}

// Negative: the host may synchronise.
void host(int *a) {
  parent<<<1, 32>>>(a);
  cudaDeviceSynchronize();
}
