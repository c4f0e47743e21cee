// Transposed matrix-vector multiplication (cuda-np.md Fig. 2): each thread
// computes one output element with a sequential loop over the matrix height.
// `nestor lint` suggests CUDA-NP for the loop; `nestor rewrite --apply np`
// spreads it over slave threads.
//
//   nvcc -O3 -arch=sm_90 tmv.cu -o tmv && ./tmv 2048 2048
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void tmv(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  if (tx >= w) return;
  float sum = 0;
  for (int i = 0; i < h; i++)
    sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}

int main(int argc, char **argv) {
  int w = argc > 1 ? atoi(argv[1]) : 2048, h = argc > 2 ? atoi(argv[2]) : 2048;
  std::vector<float> a(size_t(w) * h), b(h), c(w);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) * 0.25f;
  for (int i = 0; i < h; ++i) b[i] = float(i % 5) - 2.0f;
  float *da, *db, *dc;
  cudaMalloc(&da, a.size() * sizeof(float));
  cudaMalloc(&db, b.size() * sizeof(float));
  cudaMalloc(&dc, c.size() * sizeof(float));
  cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
  tmv<<<(w + 127) / 128, 128>>>(da, db, dc, w, h);
  cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost);
  double checksum = 0;
  for (float v : c) checksum += v;
  printf("checksum %.3f\n", checksum);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
