// Structs copied into locals before the loop that CUDA-NP still refuses, each
// with the reason and its line: the master's copy reaches its slaves word by
// word, so the struct must be trivially copyable, value-initialisable without
// running code, and small. The forms it rewrites are in
// tests/fixtures/loops/struct_copy.cu.
#include <cuda_runtime.h>

// A user-written copy constructor: copying it word by word would skip it.
struct Counted {
  float value;
  int copies;
  __host__ __device__ Counted(float v) : value(v), copies(0) {}
  __host__ __device__ Counted(const Counted &o) : value(o.value), copies(o.copies + 1) {}
};

__global__ void counted_copy(const float *seed, const int *start, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Counted c = Counted(seed[i]);
  float s = 0.0f;
  for (int k = start[i]; k < start[i + 1]; ++k) /*^counted_copy*/
    s += w[k] * c.value;
  out[i] = s;
}

// 48 bytes: over what CUDA-NP moves between threads (inter-warp, a
// shared-memory slot per thread of the block).
struct Wide {
  float a[12];
};

__global__ void wide_copy(const Wide *rows, const int *start, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Wide r = rows[i];
  float s = 0.0f;
  for (int k = start[i]; k < start[i + 1]; ++k) /*^wide_copy*/
    s += w[k] * r.a[k % 12];
  out[i] = s;
}

// A union: which member holds the value is not the type's to say.
union Bits {
  float f;
  unsigned u;
};

__global__ void union_copy(const Bits *bits, const int *start, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Bits b = bits[i];
  float s = 0.0f;
  for (int k = start[i]; k < start[i + 1]; ++k) /*^union_copy*/
    s += w[k] * b.f;
  out[i] = s;
}

int main() {
  const int n = 1000;
  float *seed, *w, *out;
  int *start;
  Wide *rows;
  Bits *bits;
  cudaMalloc(&seed, n * sizeof(float));
  cudaMalloc(&w, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&start, (n + 1) * sizeof(int));
  cudaMalloc(&rows, n * sizeof(Wide));
  cudaMalloc(&bits, n * sizeof(Bits));
  counted_copy<<<(n + 127) / 128, 128>>>(seed, start, w, out, n);
  wide_copy<<<(n + 127) / 128, 128>>>(rows, start, w, out, n);
  union_copy<<<(n + 127) / 128, 128>>>(bits, start, w, out, n);
  return cudaDeviceSynchronize() != cudaSuccess;
}
