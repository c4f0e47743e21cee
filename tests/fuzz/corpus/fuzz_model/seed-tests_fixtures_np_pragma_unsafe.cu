// np-pragma-unsafe: the pragma promises what the loop does not keep.
__global__ void k(float *a, float *out, int n) {
  __shared__ float tile[128];
  float s = 0, p = 1, prev = 0;

  // expect@+1: np-pragma-unsafe "loop-carried dependence"
  #pragma np parallel for
  for (int i = 0; i < n; i++) { out[i] = prev; prev = a[i]; }

  // expect@+2: np-pragma-unsafe "barrier"
  // expect@+1: np-pragma-unsafe "every iteration writes tile[threadIdx.x]"
  #pragma np parallel for
  for (int i = 0; i < n; i++) { tile[threadIdx.x] = a[i]; __syncthreads(); }

  // expect@+1: np-pragma-unsafe "'break'"
  #pragma np parallel for
  for (int i = 0; i < n; i++) { if (a[i] < 0) break; out[i] = a[i]; }

  // expect@+1: np-pragma-unsafe "add reduction(+:s)"
  #pragma np parallel for
  for (int i = 0; i < n; i++) s += a[i];

  // expect@+1: np-pragma-unsafe "the pragma says max"
  #pragma np parallel for reduction(max:p)
  for (int i = 0; i < n; i++) p *= a[i];

  // expect@+1: np-pragma-unsafe "not a canonical counted loop"
  #pragma np parallel for
  for (int i = 0; a[i] > 0; i++) out[i] = 1;

  // Safe: the clause covers the reduction.
  #pragma np parallel for reduction(+:s)
  for (int i = 0; i < n; i++) s += a[i] * 2;

  out[threadIdx.x] = s + p + tile[0];
}

__global__ void early_exit(float *a, int n) {
  // expect@+1: np-pragma-unsafe "'return'"
  #pragma np parallel for
  for (int i = 0; i < n; i++) { if (a[i] < 0) return; a[i] = 1; }
}
