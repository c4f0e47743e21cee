// np-local-array: thread-local arrays used in parallel loops (cuda-np.md §3.3).
#define NPOINTS 150

// Fig. 5 shape: Grad is indexed by the loop iterator only -> registers.
__global__ void ellipse(const float *in, float *out, float threshold) {
  // kernel@-1: name=ellipse
  // expect@+1: np-local-array "per-slave registers"
  float Grad[NPOINTS];
  #pragma np parallel for
  for (int n = 0; n < NPOINTS; n++) Grad[n] = in[threadIdx.x * NPOINTS + n] * 2.0f;
  float sum = 0;
  #pragma np parallel for reduction(+:sum)
  for (int n = 0; n < NPOINTS; n++) sum += Grad[n];
  float ave = sum / NPOINTS;
  float var = 0;
  #pragma np parallel for reduction(+:var)
  for (int n = 0; n < NPOINTS; n++) {
    float d = Grad[n] - ave;
    var += d * d;
  }
  if (ave * ave / var > threshold) out[threadIdx.x] = ave;
}

// A small array indexed through a permutation -> shared memory.
__global__ void permuted(const int *perm, float *out, int n) {
  // expect@+1: np-local-array "shared memory"
  float tmp[16];
  // expect@+1: np-parallel-loop
  for (int i = 0; i < 16; i++) tmp[perm[i]] = out[threadIdx.x * 16 + i];
  out[threadIdx.x] = tmp[n % 16];
}

// A large array with a non-iterator index -> global memory.
__global__ void large(const int *idx, float *out) {
  // expect@+1: np-local-array "global memory"
  float big[256];
  // expect@+1: np-parallel-loop
  for (int i = 0; i < 256; i++) big[idx[i]] = out[i];
  out[threadIdx.x] = big[threadIdx.x % 256];
}

// Negative: the array is only used in a sequential loop.
__global__ void sequential(float *out, int n) {
  float acc[8];
  acc[0] = out[0];
  for (int i = 1; i < 8; i++) acc[i] = acc[i - 1] + out[i];
  out[threadIdx.x] = acc[7];
}
