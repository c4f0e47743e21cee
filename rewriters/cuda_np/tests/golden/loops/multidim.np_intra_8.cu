// A 2-D block (16 x 8): each thread filters one pixel with `taps` weights and
// also records its own threadIdx/blockDim after the loop, which must keep
// their original values after CUDA-NP adds slaves (cuda-np.md 3.7, Figure 8).
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void filter2d(const float *in, const float *wts, float *out, int *ids, int width, int height, int taps) {
  // CUDA-NP: 8 slaves, intra-warp: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int x = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  int y = blockIdx.y * nestor_blockDim.y + nestor_threadIdx.y;
  float acc = 0.0f;
  const int base = (y * width + x) * taps;
// (was: #pragma np parallel for reduction(+:acc))
  // CUDA-NP: 8 slaves, intra-warp: iterations spread over the master and its slaves
  {
    const float nestor_acc_in = acc;
    acc = nestor::op::add::identity<float>(); // this thread's partial
  for (int t = (0) + nestor_np_group::slave_id(); t < taps; t += nestor_np_group::slave_size)
    acc += in[base + t] * wts[t];
    acc = nestor::op::add{}(nestor_acc_in, nestor_np_group::reduce<nestor::op::add>(acc)); // reduction(+:acc) (3.2)
  }
  if (nestor_np_group::is_master()) { out[y * width + x] = acc; }
  if (nestor_np_group::is_master()) { ids[y * width + x] = nestor_threadIdx.x + 100 * nestor_threadIdx.y + 10000 * (nestor_blockDim.x * nestor_blockDim.y); }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int width = 16 * int(args.get("bx", 8)), height = 8 * int(args.get("by", 6)), taps = int(args.get("taps", 21));
  float *in = loops::to_device(loops::random_floats(size_t(width) * height * taps, 10));
  float *w = loops::to_device(loops::random_floats(size_t(taps), 11));
  float *out = loops::device_zeros<float>(size_t(width) * height);
  int *ids = loops::device_zeros<int>(size_t(width) * height);
  dim3 block(16, 8);
  dim3 grid(width / 16, height / 8);
  loops::timed(args, 4.0 * double(width) * height * (taps + 2), [&] { filter2d<<<grid, dim3(128, 8, 1) /* CUDA-NP: 8 slaves, intra-warp, was block */>>>(in, w, out, ids, width, height, taps); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(width) * height));
  res.add(loops::from_device(ids, size_t(width) * height));
  return 0;
}
