// The host side: data, launches, and a check against the CPU.
#include "row_stats.cuh"

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  const int rows = 3000, nodes = 5000;
  std::vector<float> m(rows * kCols);
  for (int i = 0; i < rows * kCols; ++i) m[i] = float((i * 37) % 101) / 50.0f - 1.0f;
  std::vector<int> offsets(nodes + 1, 0);
  for (int v = 0; v < nodes; ++v) offsets[v + 1] = offsets[v] + (v * 7919) % 53;
  std::vector<float> weights(offsets[nodes]);
  for (size_t e = 0; e < weights.size(); ++e) weights[e] = float((e * 13) % 17) / 8.0f;

  float *dm, *dnorms, *dweights, *dsums;
  int *doffsets;
  cudaMalloc(&dm, m.size() * sizeof(float));
  cudaMalloc(&dnorms, rows * sizeof(float));
  cudaMalloc(&doffsets, offsets.size() * sizeof(int));
  cudaMalloc(&dweights, weights.size() * sizeof(float));
  cudaMalloc(&dsums, nodes * sizeof(float));
  cudaMemcpy(dm, m.data(), m.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(doffsets, offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(dweights, weights.data(), weights.size() * sizeof(float), cudaMemcpyHostToDevice);

  row_norms<<<(rows + 127) / 128, 128>>>(dm, dnorms, rows);
  neighbour_weights<<<(nodes + 63) / 64, dim3(512, 1, 1) /* Sub-warp decomposition, width 8, was 64 */>>>(doffsets, dweights, dsums, nodes);

  std::vector<float> norms(rows), sums(nodes);
  cudaMemcpy(norms.data(), dnorms, rows * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(sums.data(), dsums, nodes * sizeof(float), cudaMemcpyDeviceToHost);
  if (cudaGetLastError() != cudaSuccess) {
    std::printf("FAIL: CUDA error\n");
    return 1;
  }
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    float want = 0.0f;
    for (int c = 0; c < kCols; ++c) want += m[r * kCols + c] * m[r * kCols + c];
    bad += std::fabs(norms[r] - want) > 1e-3f * (1.0f + std::fabs(want));
  }
  for (int v = 0; v < nodes; ++v) {
    float want = 0.0f;
    for (int e = offsets[v]; e < offsets[v + 1]; ++e) want += weights[e];
    bad += std::fabs(sums[v] - want) > 1e-3f * (1.0f + std::fabs(want));
  }
  std::printf("%s: %d mismatches\n", bad ? "FAIL" : "PASS", bad);
  cudaFree(dm);
  cudaFree(dnorms);
  cudaFree(doffsets);
  cudaFree(dweights);
  cudaFree(dsums);
  return bad != 0;
}
