// np-parallel-loop: positive and negative cases, and loop model fields.
#define N_ITEMS 16

// cuda-np.md Fig. 2: transposed matrix-vector multiplication.
__global__ void tmv(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  // loop@+2: trip_count=uniform induction_var=i reductions=+:sum independent=true in_kernel=true function=tmv
  // expect@+1: np-parallel-loop "#pragma np parallel for reduction(+:sum)"
  for (int i = 0; i < h; i++)
    sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}

__global__ void constant_trip(float *out, const float *in) {
  int t = threadIdx.x;
  float m = -1e30f;
  // loop@+2: trip_count=constant constant_trip_count=16 reductions=max:m
  // expect@+1: np-parallel-loop "#pragma np parallel for reduction(max:m)"
  for (int k = 0; k < N_ITEMS; ++k)
    m = fmaxf(m, in[t * N_ITEMS + k]);
  out[t] = m;
}

__global__ void no_reduction(float *out, const float *in, int n) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  // expect@+1: np-parallel-loop "#pragma np parallel for`"
  for (int j = 0; j < n; j += 2)
    out[t * n + j] = 2.0f * in[t * n + j];
}

// Negative: a loop-carried dependence through a scalar.
__global__ void carried(float *out, const float *in, int n) {
  int t = threadIdx.x;
  float prev = 0;
  // loop@+1: independent=false carried_dependences~=prev
  for (int i = 0; i < n; i++) {
    out[t * n + i] = in[t * n + i] + prev;
    prev = out[t * n + i] * 0.5f;
  }
}

// Negative: array recurrence a[i] = a[i-1] + ...
__global__ void recurrence(float *a, int n) {
  // loop@+1: independent=false carried_dependences=a
  for (int i = 1; i < n; i++) a[i] = a[i - 1] + 1.0f;
}

// Negative: too few iterations to be worth slave threads.
__global__ void tiny(float *a) {
  // loop@+1: trip_count=constant constant_trip_count=2
  for (int i = 0; i < 2; i++) a[threadIdx.x * 2 + i] = 0;
}

// Negative: a grid-stride loop is the thread's share of a flat loop.
__global__ void grid_stride(float *a, int n) {
  // loop@+1: grid_stride=true trip_count=uniform
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) a[i] *= 2;
}

// Negative: loops of __device__ functions are not kernels' loops.
__device__ float dot(const float *x, const float *y, int n) {
  float s = 0;
  // loop@+1: in_kernel=false reductions=+:s
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

// Negative: a barrier in the body.
__global__ void with_barrier(float *a, int n) {
  __shared__ float tile[256];
  // loop@+1: barriers=1 independent=false
  for (int i = 0; i < n; i++) {
    tile[threadIdx.x] = a[i * 256 + threadIdx.x];
    __syncthreads();
    a[i * 256 + threadIdx.x] = tile[255 - threadIdx.x];
  }
}

// Nested: only the outer loop is reported.
__global__ void nested(float *out, const float *in, int rows, int cols) {
  int t = threadIdx.x;
  // loop@+2: depth=0
  // expect@+1: np-parallel-loop
  for (int r = 0; r < rows; r++)
    // loop@+1: depth=1 parent_loop=9
    for (int c = 0; c < cols; c++) out[(t * rows + r) * cols + c] = in[(t * rows + r) * cols + c];
}

// Negative: atomics in the body.
__global__ void histogram(int *bins, const int *keys, int n) {
  for (int i = 0; i < n; i++) atomicAdd(&bins[keys[threadIdx.x * n + i]], 1);
}

// Negative: a pragma is already there (np-parallel-loop is for unmarked loops).
__global__ void already_marked(float *c, const float *a, int h) {
  float s = 0;
  #pragma np parallel for reduction(+:s)
  for (int i = 0; i < h; i++) s += a[i];
  c[threadIdx.x] = s;
}

// Negative: a warp-stride loop is the lane's share of a warp-cooperative loop.
__global__ void warp_per_row(const float *m, float *out, int cols) {
  int lane = threadIdx.x % 32;
  float s = 0;
  // loop@+1: grid_stride=true
  for (int c = lane; c < cols; c += 32) s += m[blockIdx.x * cols + c];
  out[blockIdx.x * 32 + lane] = s;
}
