// parse-error: clang's errors become findings and the rest is still analysed.
__global__ void broken(float *a) {
  // expect@+1: parse-error "undeclared identifier"
  a[threadIdx.x] = undeclared_thing;
}

__global__ void broken_syntax(float *a) {
  int x = 3
  // expect@-1: parse-error "expected ';'"
  a[threadIdx.x] = x;
}

// Still analysed after the errors:
__global__ void fine(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  // expect@+1: np-parallel-loop
  for (int i = 0; i < h; i++) sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}
