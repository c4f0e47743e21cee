// cuda-np.md Fig. 5: CUDA-NP directives with reductions on a thread-local
// array. The second loop's pragma forgets its reduction clause, which
// `nestor lint` reports (np-pragma-unsafe).
#define NPOINTS 150

__global__ void ellipse(const float *grad_x, float *gicov, float threshold, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float Grad[NPOINTS];
  #pragma np parallel for
  for (int k = 0; k < NPOINTS; k++) Grad[k] = grad_x[t * NPOINTS + k] * 0.5f;
  float sum = 0;
  #pragma np parallel for
  for (int k = 0; k < NPOINTS; k++) sum += Grad[k];
  float ave = sum / NPOINTS, var = 0;
  #pragma np parallel for reduction(+:var)
  for (int k = 0; k < NPOINTS; k++) {
    float d = Grad[k] - ave;
    var += d * d;
  }
  if (ave * ave / var > threshold) gicov[t] = ave / var;
}
