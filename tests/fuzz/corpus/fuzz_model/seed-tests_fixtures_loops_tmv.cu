// TMV, cuda-np.md Figure 2: one thread per output element, a parallel
// reduction loop over the column. Widths are multiples of TMV_BLOCK.
#include "loops_harness.cuh"

#define TMV_BLOCK 64

__global__ void tmv(float *a, float *b, float *c, int w, int h) {
  float sum = 0;
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
#pragma np parallel for reduction(+:sum)
  for (int i = 0; i < h; i++)
    sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int w = int(args.get("w", 1024)), h = int(args.get("h", 1000));
  if (w % TMV_BLOCK) { std::fprintf(stderr, "w must be a multiple of %d\n", TMV_BLOCK); return 2; }
  float *a = loops::to_device(loops::random_floats(size_t(w) * h, 1));
  float *b = loops::to_device(loops::random_floats(size_t(h), 2));
  float *c = loops::device_zeros<float>(size_t(w));
  loops::timed(args, 4.0 * (double(w) * h + h + w), [&] { tmv<<<w / TMV_BLOCK, TMV_BLOCK>>>(a, b, c, w, h); });
  loops::ResultFile out(args);
  out.add(loops::from_device(c, size_t(w)));
  return 0;
}
