// The wrapper: sizes and types first, then the kernel file, then the host code.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define NFEATURES 34
#define NCLUSTERS 5
#define THREADS_PER_BLOCK 128

typedef struct {
  float centre[NFEATURES];
} Cluster;

#include "kmeans_kernel.cu"
#include <nestor/np.cuh>

int main() {
  const int npoints = 4096;
  float *features = (float *)malloc(sizeof(float) * npoints * NFEATURES);
  Cluster clusters[NCLUSTERS];
  for (int i = 0; i < npoints * NFEATURES; ++i) features[i] = float((i * 31) % 97) / 97.0f;
  for (int c = 0; c < NCLUSTERS; ++c)
    for (int f = 0; f < NFEATURES; ++f) clusters[c].centre[f] = float((c * 7 + f * 3) % 11) / 11.0f;

  float *d_features;
  Cluster *d_clusters;
  int *d_membership;
  cudaMalloc((void **)&d_features, sizeof(float) * npoints * NFEATURES);
  cudaMalloc((void **)&d_clusters, sizeof(clusters));
  cudaMalloc((void **)&d_membership, sizeof(int) * npoints);
  cudaMemcpy(d_features, features, sizeof(float) * npoints * NFEATURES, cudaMemcpyHostToDevice);
  cudaMemcpy(d_clusters, clusters, sizeof(clusters), cudaMemcpyHostToDevice);

  int blocks = (npoints + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
  kmeansPoint<<<blocks, nestor::np::block_as_analysed<((THREADS_PER_BLOCK) == 128)>(dim3(512, 1, 1)) /* CUDA-NP: 4 slaves, intra-warp, was THREADS_PER_BLOCK */>>>(d_features, d_clusters, d_membership, npoints);

  int *membership = (int *)malloc(sizeof(int) * npoints);
  cudaMemcpy(membership, d_membership, sizeof(int) * npoints, cudaMemcpyDeviceToHost);
  int bad = cudaGetLastError() != cudaSuccess;
  for (int p = 0; p < npoints; ++p) {
    int best = 0;
    float bestDist = 3.4e38f;
    for (int c = 0; c < NCLUSTERS; ++c) {
      float d = 0.0f;
      for (int f = 0; f < NFEATURES; ++f) {
        float diff = features[p * NFEATURES + f] - clusters[c].centre[f];
        d += diff * diff;
      }
      if (d < bestDist) {
        bestDist = d;
        best = c;
      }
    }
    bad += membership[p] != best;
  }
  printf("%s: %d mismatches\n", bad ? "FAIL" : "PASS", bad);
  cudaFree(d_features);
  cudaFree(d_clusters);
  cudaFree(d_membership);
  free(features);
  free(membership);
  return bad != 0;
}
