// A header missing from the include path is reported once, at the #include,
// and every kernel that parsed is still analysed.
#include "no_such_header_nestor.h"
// expect@-1: parse-error "file not found"

__global__ void fine(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  // loop@+2: trip_count=uniform reductions=+:sum
  // expect@+1: np-parallel-loop
  for (int i = 0; i < h; i++) sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}
