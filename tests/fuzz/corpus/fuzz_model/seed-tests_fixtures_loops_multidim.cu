// A 2-D block (16 x 8): each thread filters one pixel with `taps` weights and
// also records its own threadIdx/blockDim after the loop, which must keep
// their original values after CUDA-NP adds slaves (cuda-np.md 3.7, Figure 8).
#include "loops_harness.cuh"

__global__ void filter2d(const float *in, const float *wts, float *out, int *ids, int width, int height, int taps) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float acc = 0.0f;
  const int base = (y * width + x) * taps;
#pragma np parallel for reduction(+:acc)
  for (int t = 0; t < taps; ++t)
    acc += in[base + t] * wts[t];
  out[y * width + x] = acc;
  ids[y * width + x] = threadIdx.x + 100 * threadIdx.y + 10000 * (blockDim.x * blockDim.y);
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
  loops::timed(args, 4.0 * double(width) * height * (taps + 2), [&] { filter2d<<<grid, block>>>(in, w, out, ids, width, height, taps); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(width) * height));
  res.add(loops::from_device(ids, size_t(width) * height));
  return 0;
}
