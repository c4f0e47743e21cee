// dp-launch-per-thread and the launch model.
__global__ void child(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

__global__ void parent(int *data, const int *offsets, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int begin = offsets[v];
  int deg = offsets[v + 1] - begin;
  // launch@+2: device_side=true parent=parent child=child threads=deg serializable=true every_thread_may_launch=true
  // expect@+1: dp-launch-per-thread "threshold it"
  child<<<(deg + 127) / 128, 128>>>(data + begin, deg);
}

// Negative: one launch per block, guarded by the thread id.
__global__ void parent_once(int *data, int n) {
  if (threadIdx.x == 0) {
    // launch@+1: every_thread_may_launch=false in_branch=true
    child<<<(n + 255) / 256, 256>>>(data, n);
  }
}

// Negative: host launches are not device launches.
void host(int *data, const int *offsets, int n) {
  // launch@+1: device_side=false child=parent threads=n
  parent<<<(n + 127) / 128, 128>>>(data, offsets, n);
  parent_once<<<1, 32>>>(data, n);
}

// A data-dependent test selects many threads, not one: still per-thread launches.
__global__ void frontier_parent(int *data, const int *levels, const int *offsets, int level, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    if (levels[v] == level) {
      int deg = offsets[v + 1] - offsets[v];
      // launch@+2: every_thread_may_launch=true threads=deg
      // expect@+1: dp-launch-per-thread
      child<<<(deg + 63) / 64, 64>>>(data + offsets[v], deg);
    }
  }
}
