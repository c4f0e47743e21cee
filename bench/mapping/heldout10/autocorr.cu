// Held-out case (bench/mapping/heldout10.tsv): the autocorrelation of many
// signals at every lag up to a maximum (the correlogram that seismic,
// vibration-monitoring and pitch-detection pipelines compute before peak
// picking, one (signal, lag) pair per thread): thread (s, lag) sums
// x[t] * x[t + lag] over the len - lag positions of signal s in DOUBLE from
// float samples. A sum over a dense contiguous row read at two offsets, whose
// trip count falls by one from each thread to the next (len - lag); 512 and
// 4096 samples. Written for issue 22's tenth held-out set, before any tuning
// on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef ACF_BLOCK
#define ACF_BLOCK 256
#endif

__global__ void autocorr_at_lag(const float *__restrict__ x, float *__restrict__ acf, int nsig, int len, int maxlag) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nsig * maxlag) return;
  const int s = t / maxlag, lag = t % maxlag;
  const float *sig = x + (size_t)s * len;
  double acc = 0.0;
  for (int i = 0; i < len - lag; ++i) acc += double(sig[i]) * double(sig[i + lag]);
  acf[t] = float(acc / double(len - lag));
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nsig = int(args.get("signals", 4096)), len = int(args.get("len", 512));
  const int maxlag = int(args.get("maxlag", 256));
  if (nsig < 1 || len < 1 || maxlag < 1 || maxlag > len) {
    std::fprintf(stderr, "autocorr: --signals, --len and --maxlag at least 1, --maxlag at most --len\n");
    return 2;
  }
  // Every signal a sine of its own period (8 to 71 samples) plus noise from a
  // 32-bit hash, offset by 0.5 as a sensor's bias.
  const size_t total = size_t(nsig) * len;
  std::vector<float> x(total);
  for (int s = 0; s < nsig; ++s) {
    const float w = 6.2831853f / float(8 + s % 64);
    for (int i = 0; i < len; ++i) {
      unsigned h = unsigned(s * len + i) * 0x9E3779B9u + 1041u;
      h ^= h >> 16;
      h *= 0x7FEB352Du;
      h ^= h >> 15;
      h *= 0x846CA68Bu;
      h ^= h >> 16;
      x[size_t(s) * len + i] = 0.5f + std::sin(w * float(i)) + float(h >> 8) * (0.5f / 16777216.0f);
    }
  }
  const int threads = nsig * maxlag;
  float *dx = loops::to_device(x);
  float *acf = loops::device_zeros<float>(size_t(threads));
  loops::timed(args, 4.0 * double(total) + 4.0 * threads, [&] {
    autocorr_at_lag<<<(threads + ACF_BLOCK - 1) / ACF_BLOCK, ACF_BLOCK>>>(dx, acf, nsig, len, maxlag);
  });
  std::vector<float> got = loops::from_device(acf, size_t(threads));
  // The serial reference checks every 53rd pair, in double as the kernel;
  // only the order of the double sum may differ.
  size_t bad = 0;
  for (int t = 0; t < threads; t += 53) {
    const int s = t / maxlag, lag = t % maxlag;
    const float *sig = x.data() + size_t(s) * len;
    double acc = 0;
    for (int i = 0; i + lag < len; ++i) acc += double(sig[i]) * double(sig[i + lag]);
    const double want = acc / double(len - lag);
    if (std::fabs(got[size_t(t)] - want) > 1e-5 * std::max(1.0, std::fabs(want))) ++bad;
  }
  std::printf("autocorr: %d signals of %d samples, lags 0-%d%s\n", nsig, len, maxlag - 1,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
