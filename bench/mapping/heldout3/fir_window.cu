// Held-out case (bench/mapping/heldout3.tsv): a FIR filter with clipping over
// a long signal (the per-sample window of audio and sensor pre-processing
// code): one thread per output sample copies its window of TAPS inputs into a
// thread-local array, then runs two loops over that array, the weighted sum
// with the filter's taps and the window's peak magnitude, and clips the sum to
// the peak. Short loops over registers: the original is expected to be hard
// to beat. Written for issue 22's third held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef TAPS
#define TAPS 7
#endif
#ifndef FIR_BLOCK
#define FIR_BLOCK 256
#endif

__global__ void fir_clip(const float *in, const float *taps, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float win[TAPS];
    for (int t = 0; t < TAPS; t++) win[t] = in[i + t];
    float acc = 0.0f;
    for (int t = 0; t < TAPS; t++) acc += taps[t] * win[t];
    float peak = 0.0f;
    for (int t = 0; t < TAPS; t++) peak = fmaxf(peak, fabsf(win[t]));
    out[i] = fminf(fmaxf(acc, -peak), peak);
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 1 << 22));
  // The signal carries TAPS - 1 samples past the last output's window start.
  std::vector<float> in = loops::random_floats(size_t(n) + TAPS - 1, 331);
  std::vector<float> taps = loops::random_floats(TAPS, 332, -0.5f, 0.5f);
  float *din = loops::to_device(in), *dtaps = loops::to_device(taps);
  float *out = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 8.0 * n, [&] { fir_clip<<<(n + FIR_BLOCK - 1) / FIR_BLOCK, FIR_BLOCK>>>(din, dtaps, out, n); });
  std::vector<float> got = loops::from_device(out, size_t(n));
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    double acc = 0;
    float peak = 0.0f;
    for (int t = 0; t < TAPS; ++t) {
      acc += double(taps[size_t(t)]) * in[size_t(i) + t];
      peak = std::max(peak, std::fabs(in[size_t(i) + t]));
    }
    double want = std::min(std::max(acc, -double(peak)), double(peak));
    if (std::fabs(got[size_t(i)] - want) > 1e-5 * TAPS) ++bad;
  }
  std::printf("fir_window: %d samples, %d taps%s\n", n, TAPS, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
