// Held-out case (bench/mapping/heldout5.tsv): block decimation of a long
// signal (the anti-aliasing sum of a downsampler, or a coarse energy estimate
// that reads every stride-th sample of a frame, as a naive cuda-samples-style
// kernel writes it): output i sums the samples i x seg + k x stride for
// k < taps, so each thread walks its own frame with a fixed stride and
// neighbouring threads are a frame apart (no coalescing across threads). A
// strided reduction, 32 taps. Written for issue 22's fifth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef DEC_BLOCK
#define DEC_BLOCK 128
#endif

__global__ void decimate_sum(const float *x, float *out, int outputs, int seg, int stride, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < outputs) {
    float s = 0.0f;
    for (int k = 0; k < taps; ++k) s += x[(size_t)i * seg + (size_t)k * stride];
    out[i] = s;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int outputs = int(args.get("outputs", 524288)), seg = int(args.get("seg", 128)),
            stride = int(args.get("stride", 4));
  if (outputs < 1 || seg < 1 || stride < 1 || stride > seg) {
    std::fprintf(stderr, "decimate: --outputs, --seg and --stride must be at least 1, --stride at most --seg\n");
    return 2;
  }
  const int taps = (seg + stride - 1) / stride;
  std::vector<float> x = loops::random_floats(size_t(outputs) * seg, 561, -1.f, 1.f);
  float *dx = loops::to_device(x), *out = loops::device_zeros<float>(size_t(outputs));
  loops::timed(args, 4.0 * (double(outputs) * taps + outputs), [&] {
    decimate_sum<<<(outputs + DEC_BLOCK - 1) / DEC_BLOCK, DEC_BLOCK>>>(dx, out, outputs, seg, stride, taps);
  });
  std::vector<float> got = loops::from_device(out, size_t(outputs));
  // At most a few hundred terms in [-1, 1]: 1e-4 absolute is far above
  // float rounding in any order.
  size_t bad = 0;
  for (int i = 0; i < outputs; ++i) {
    double s = 0;
    for (int k = 0; k < taps; ++k) s += x[size_t(i) * seg + size_t(k) * stride];
    if (std::fabs(got[size_t(i)] - s) > 1e-4) ++bad;
  }
  std::printf("decimate: %d outputs, %d taps of stride %d%s\n", outputs, taps, stride,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
