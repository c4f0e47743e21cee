// np-irregular-loop: trip counts that differ per thread.

// CSR SpMV, one thread per row: the row length differs per thread.
__global__ void spmv_csr(const int *row_ptr, const int *cols, const float *vals, const float *x, float *y,
                         int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float dot = 0;
  // loop@+2: trip_count=irregular reductions=+:dot lower_bound=row_ptr[row] upper_bound="row_ptr[row + 1]"
  // expect@+1: np-irregular-loop "CTE"
  for (int e = row_ptr[row]; e < row_ptr[row + 1]; ++e)
    dot += vals[e] * x[cols[e]];
  y[row] = dot;
}

// Trip count taken from a per-thread degree through a local variable.
__global__ void degree_gather(const int *offsets, const int *nbrs, int *out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int begin = offsets[v];
  int deg = offsets[v + 1] - begin;
  // loop@+2: trip_count=irregular
  // expect@+1: np-irregular-loop "CUDA-NP (np_type=intra)"
  for (int i = 0; i < deg; ++i)
    out[begin + i] = nbrs[begin + i] * 2;
}

// Triangular loop: bound is the thread id itself.
__global__ void triangle(float *a, int n) {
  int t = threadIdx.x;
  float s = 0;
  // loop@+2: trip_count=irregular
  // expect@+1: np-irregular-loop
  for (int i = 0; i < t; i++) s += a[i];
  a[n + t] = s;
}

// Negative: the bound is uniform although loaded from memory.
__global__ void uniform_from_memory(float *a, const int *params) {
  int n = params[0];
  float s = 0;
  // loop@+2: trip_count=uniform
  // expect@+1: np-parallel-loop
  for (int i = 0; i < n; i++) s += a[threadIdx.x * n + i];
  a[threadIdx.x] = s;
}

// Negative: irregular, but iterations depend on each other.
__global__ void irregular_dependent(float *a, const int *len) {
  int t = threadIdx.x;
  // loop@+1: trip_count=irregular independent=false
  for (int i = 1; i < len[t]; i++) a[i] = a[i - 1] * 2;
}
