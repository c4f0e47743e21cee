// Row sums of a ROWS x COLS matrix, the program the end-to-end profiler test
// measures. The kernel comes from kernel.cuh, which the plan's variants
// replace; main.cu stays the same for every variant.
//   usage: rowsum OUT.txt   (writes one row sum per line)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#ifndef ROWS
#define ROWS 8192
#endif
#ifndef COLS
#define COLS 4096
#endif
#ifndef REPEAT
#define REPEAT 5
#endif

#include "kernel.cuh"

#define CHECK(expr)                                                                        \
  do {                                                                                     \
    cudaError_t e_ = (expr);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.txt\n", argv[0]);
    return 2;
  }
  const size_t rows = ROWS, cols = COLS;
  std::vector<float> matrix(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) matrix[r * cols + c] = static_cast<float>((r * 7 + c * 13) % 17) * 0.125f - 1.0f;
  float *d_matrix = nullptr, *d_sums = nullptr;
  CHECK(cudaMalloc(&d_matrix, matrix.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_sums, rows * sizeof(float)));
  CHECK(cudaMemcpy(d_matrix, matrix.data(), matrix.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (int i = 0; i < REPEAT; ++i) {
    launch_rowsum(d_matrix, d_sums, static_cast<int>(rows), static_cast<int>(cols));
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  std::vector<float> sums(rows);
  CHECK(cudaMemcpy(sums.data(), d_sums, rows * sizeof(float), cudaMemcpyDeviceToHost));
  FILE* out = std::fopen(argv[1], "w");
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  for (float s : sums) std::fprintf(out, "%.6e\n", s);
  std::fclose(out);
  CHECK(cudaFree(d_matrix));
  CHECK(cudaFree(d_sums));
  return 0;
}
