// Launch configurations written with casts, as real code often writes them
// (`int(...)`, `unsigned(...)`): CUDA-NP enlarges the block and, where the
// enlarged block would not fit, reshapes the grid; the new configuration
// must replace the whole written argument, cast included (a regression:
// `int(X)` became `int(dim3 ...)`, which nvcc rejects).

constexpr int kBlock = 256;

__global__ void row_sums(const float *a, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += a[r * cols + c];
  out[r] = s;
}

__global__ void row_max(const float *a, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = a[r * cols];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, a[r * cols + c]);
    out[r] = m;
  }
}

void launch(const float *a, float *sums, float *maxima, int rows, int cols, int threads) {
  row_sums<<<int((rows + kBlock - 1) / kBlock), int(kBlock)>>>(a, sums, rows, cols);
  row_max<<<unsigned((rows + threads - 1) / threads), unsigned(threads)>>>(a, maxima, rows, cols);
}
