// A template kernel with a CSR row reduction: the load-balancing templates and
// merge-path emit one non-template copy of the kernel, so they refuse it.
template <int Scale>
__global__ void row_sums_t(const int *rp, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = rp[i]; j < rp[i + 1]; ++j) s += v[j]; /*^*/
  out[i] = Scale * s;
}

void host(const int *rp, const float *v, float *out, int n) {
  row_sums_t<2><<<(n + 127) / 128, 128>>>(rp, v, out, n);
}
