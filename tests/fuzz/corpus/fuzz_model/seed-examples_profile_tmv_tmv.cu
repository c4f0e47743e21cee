// TMV (transposed matrix-vector product), cuda-np.md Figure 2: one thread per
// output element c[tx] = sum_i a[i][tx] * b[i], a reduction loop over the
// column. With few columns and long columns the grid is small and each
// thread's loop long: the nested parallelism CUDA-NP spreads over slave
// threads. Input `nestor profile` plans for (examples/profile/tmv; the plan is generated into build/plans/tmv).
//
// usage: tmv [W [H [OUT [REPS]]]]   W a multiple of TMV_BLOCK
// Writes c (one value per line) to OUT; launches the kernel REPS times.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define TMV_BLOCK 128

#define CUDA_CHECK(expr)                                                                   \
  do {                                                                                     \
    cudaError_t err_ = (expr);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

__global__ void tmv(float *a, float *b, float *c, int w, int h) {
  float sum = 0;
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
#pragma np parallel for reduction(+:sum)
  for (int i = 0; i < h; i++)
    sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}

int main(int argc, char **argv) {
  const int w = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int h = argc > 2 ? std::atoi(argv[2]) : 16384;
  const char *out = argc > 3 ? argv[3] : "c.txt";
  const int reps = argc > 4 ? std::atoi(argv[4]) : 5;
  if (w <= 0 || h <= 0 || w % TMV_BLOCK || reps <= 0) {
    std::fprintf(stderr, "usage: tmv [W [H [OUT [REPS]]]] with W a positive multiple of %d\n", TMV_BLOCK);
    return 2;
  }
  // Small integers: every partial sum is exact in float, so any summation
  // order gives the same result.
  std::vector<float> ha(static_cast<size_t>(w) * h), hb(static_cast<size_t>(h));
  for (size_t i = 0; i < ha.size(); ++i) ha[i] = float((i * 2654435761u >> 7) % 5);
  for (size_t i = 0; i < hb.size(); ++i) hb[i] = float((i * 40503u >> 3) % 3);
  float *a, *b, *c;
  CUDA_CHECK(cudaMalloc(&a, ha.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&b, hb.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&c, size_t(w) * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(a, ha.data(), ha.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b, hb.data(), hb.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (int r = 0; r < reps; ++r) {
    tmv<<<w / TMV_BLOCK, TMV_BLOCK>>>(a, b, c, w, h);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> hc(static_cast<size_t>(w));
  CUDA_CHECK(cudaMemcpy(hc.data(), c, hc.size() * sizeof(float), cudaMemcpyDeviceToHost));
  FILE *f = std::fopen(out, "w");
  if (!f) {
    std::fprintf(stderr, "tmv: cannot write '%s'\n", out);
    return 2;
  }
  for (float v : hc) std::fprintf(f, "%.1f\n", v);
  std::fclose(f);
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(c));
  return 0;
}
