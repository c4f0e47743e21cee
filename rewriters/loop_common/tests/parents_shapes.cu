// Shapes whose statement parents StmtParentsTest.cpp compares with clang's
// whole-unit map: default arguments, lambdas, a template kernel and its
// instantiation, a range-for, nested loops and a device-side launch.
__device__ int scaled(int v, int by = 3 * 2) { return v * by; }

template <typename T>
__global__ void sum_rows(const int *rowptr, const T *val, T *out, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  T acc = T(0);
  auto add = [&](int j) { acc += val[j] * T(scaled(j)); };
  for (int j = rowptr[row]; j < rowptr[row + 1]; ++j) add(j);
  out[row] = acc;
}
template __global__ void sum_rows<float>(const int *, const float *, float *, int);

__global__ void child(int *data, int base) { data[base + threadIdx.x] += 1; }

__global__ void parent(int *data, const int *counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int local[4] = {1, 2, 3, 4};
    for (int v : local)
      for (int k = 0; k < counts[i]; ++k) data[i] += v * k;
    if (counts[i] > 32) child<<<(counts[i] + 31) / 32, 32>>>(data, i * 64);
  }
}
