#include <nestor/np.cuh>
// Included by kmeans.cu after NFEATURES, NCLUSTERS and Cluster: not a
// translation unit of its own (it does not compile alone).
#ifndef KMEANS_KERNEL_CU
#define KMEANS_KERNEL_CU

__global__ void kmeansPoint(const float *features, const Cluster *clusters, int *membership, int npoints) {
  // CUDA-NP: 4 slaves, intra-warp: master = linear thread / 4, slave = linear thread % 4 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<4>;
  const dim3 nestor_blockDim(blockDim.x / 4, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int point = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (point >= npoints) return;
  int index = 0;
  float minDist = 3.4e38f;
  for (int c = 0; c < NCLUSTERS; ++c) {
    float dist = 0.0f;
    // CUDA-NP: 4 slaves, intra-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:dist))
    {
      const float nestor_dist_in = dist;
      dist = nestor::op::add::identity<float>(); // this thread's partial
    for (int f = (0) + nestor_np_group::slave_id(); f < NFEATURES; f += nestor_np_group::slave_size) {
      float diff = features[point * NFEATURES + f] - clusters[c].centre[f];
      dist += diff * diff;
    }
      dist = nestor::op::add{}(nestor_dist_in, nestor_np_group::reduce<nestor::op::add>(dist)); // reduction(+:dist) (3.2)
    }
    if (dist < minDist) {
      minDist = dist;
      index = c;
    }
  }
  if (nestor_np_group::is_master()) { membership[point] = index; }
}

#endif
