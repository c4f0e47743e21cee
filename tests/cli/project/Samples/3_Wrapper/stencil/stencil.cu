#include "stencil_kernel.cu"

void runStencil(const float *in, float *out, int n) { stencil<<<(n + 255) / 256, 256>>>(in, out, n); }
