// TMV (transposed matrix-vector product), cuda-np.md Figure 2: one thread per
// output element c[tx] = sum_i a[i][tx] * b[i], a reduction loop over the
// column. With few columns and long columns the grid is small and each
// thread's loop long: the nested parallelism CUDA-NP spreads over slave
// threads. Input `nestor profile` plans for (examples/profile/plans/tmv).
//
// usage: tmv [W [H [OUT [REPS]]]]   W a multiple of TMV_BLOCK
// Writes c (one value per line) to OUT; launches the kernel REPS times.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <nestor/np.cuh>

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
  // CUDA-NP: 8 slaves, inter-warp: block (128, 8), master = threadIdx.x, slave = threadIdx.y (cuda-np.md 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<128, 8>;
  const dim3 nestor_blockDim(128, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  float sum = 0;
  int tx = nestor_threadIdx.x + blockIdx.x * nestor_blockDim.x;
// (was: #pragma np parallel for reduction(+:sum))
  // CUDA-NP: 8 slaves, inter-warp: iterations spread over the master and its slaves
  {
    const float nestor_sum_in = sum;
    sum = nestor::op::add::identity<float>(); // this thread's partial
  for (int i = (0) + nestor_np_group::slave_id(); i < h; i += nestor_np_group::slave_size)
    sum += a[i * w + tx] * b[i];
    sum = nestor::op::add{}(nestor_sum_in, nestor_np_group::reduce<nestor::op::add>(sum)); // reduction(+:sum) (3.2)
  }
  if (nestor_np_group::is_master()) { c[tx] = sum; }
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
    tmv<<<w / TMV_BLOCK, dim3(128, 8, 1) /* CUDA-NP: 8 slaves, inter-warp, was TMV_BLOCK */>>>(a, b, c, w, h);
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
