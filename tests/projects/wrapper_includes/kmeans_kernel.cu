// Included by kmeans.cu after NFEATURES, NCLUSTERS and Cluster: not a
// translation unit of its own (it does not compile alone).
#ifndef KMEANS_KERNEL_CU
#define KMEANS_KERNEL_CU

__global__ void kmeansPoint(const float *features, const Cluster *clusters, int *membership, int npoints) {
  int point = blockIdx.x * blockDim.x + threadIdx.x;
  if (point >= npoints) return;
  int index = 0;
  float minDist = 3.4e38f;
  for (int c = 0; c < NCLUSTERS; ++c) {
    float dist = 0.0f;
    for (int f = 0; f < NFEATURES; ++f) {
      float diff = features[point * NFEATURES + f] - clusters[c].centre[f];
      dist += diff * diff;
    }
    if (dist < minDist) {
      minDist = dist;
      index = c;
    }
  }
  membership[point] = index;
}

#endif
