// Already annotated with a CUDA-NP pragma: hovering the pragma line explains it.
__global__ void tmv_np(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
#pragma np parallel for reduction(+:sum)
  for (int i = 0; i < h; i++)
    sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}
