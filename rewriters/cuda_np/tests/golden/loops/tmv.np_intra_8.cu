// TMV, cuda-np.md Figure 2: one thread per output element, a parallel
// reduction loop over the column. Widths are multiples of TMV_BLOCK.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

#define TMV_BLOCK 64

__global__ void tmv(float *a, float *b, float *c, int w, int h) {
  // CUDA-NP: 8 slaves, intra-warp: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  float sum = 0;
  int tx = nestor_threadIdx.x + blockIdx.x * nestor_blockDim.x;
// (was: #pragma np parallel for reduction(+:sum))
  // CUDA-NP: 8 slaves, intra-warp: iterations spread over the master and its slaves
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
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int w = int(args.get("w", 1024)), h = int(args.get("h", 1000));
  if (w % TMV_BLOCK) { std::fprintf(stderr, "w must be a multiple of %d\n", TMV_BLOCK); return 2; }
  float *a = loops::to_device(loops::random_floats(size_t(w) * h, 1));
  float *b = loops::to_device(loops::random_floats(size_t(h), 2));
  float *c = loops::device_zeros<float>(size_t(w));
  loops::timed(args, 4.0 * (double(w) * h + h + w), [&] { tmv<<<w / TMV_BLOCK, nestor::np::block_as_analysed<((TMV_BLOCK) == 64)>(dim3(512, 1, 1)) /* CUDA-NP: 8 slaves, intra-warp, was TMV_BLOCK */>>>(a, b, c, w, h); });
  loops::ResultFile out(args);
  out.add(loops::from_device(c, size_t(w)));
  return 0;
}
