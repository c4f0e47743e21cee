// Held-out case (bench/mapping/heldout2.tsv): the distance step of k-means in
// the layout of Rodinia's kmeans (features stored feature-major, so threads
// of a warp read consecutive points): one thread per point computes its
// squared distance to every cluster centre (clusters x features) and writes
// each distance to a point-major table for the assignment step.
// Held-out: no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef KM_BLOCK
#define KM_BLOCK 256
#endif

__global__ void kmeans_dist(const float *feature_major, const float *centres, float *dist, int npoints,
                            int nclusters, int nfeatures) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npoints) return;
  for (int c = 0; c < nclusters; c++) {
    float d = 0.0f;
    for (int f = 0; f < nfeatures; f++) {
      float diff = feature_major[(size_t)f * npoints + p] - centres[c * nfeatures + f];
      d += diff * diff;
    }
    dist[(size_t)p * nclusters + c] = d;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("points", 65536)), k = int(args.get("clusters", 5)), nf = int(args.get("features", 34));
  float *feat = loops::to_device(loops::random_floats(size_t(n) * nf, 91, 0.f, 1.f));
  float *centres = loops::to_device(loops::random_floats(size_t(k) * nf, 92, 0.f, 1.f));
  float *dist = loops::device_zeros<float>(size_t(n) * k);
  loops::timed(args, 4.0 * (double(n) * nf + double(n) * k), [&] {
    kmeans_dist<<<(n + KM_BLOCK - 1) / KM_BLOCK, KM_BLOCK>>>(feat, centres, dist, n, k, nf);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(dist, size_t(n) * k));
  return 0;
}
