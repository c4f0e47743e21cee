// Held-out case (bench/mapping/heldout18.tsv): every switch port's peak
// queue depth over a telemetry window (what a network monitor's in-band
// telemetry collector reports per port, one port per thread): port q's
// nsamp UNSIGNED SHORT queue-depth samples are stored together (row-major,
// q x nsamp + t), and the thread keeps an INT MAX, from 0, of them over a
// PARAMETER-TRIP loop (t < nsamp); 32 and 500 samples. An INT MAX of a
// row-major unsigned short. Written for issue 22's eighteenth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
#include <cstring>

#include "loops_harness.cuh"

#ifndef QD_BLOCK
#define QD_BLOCK 256
#endif

__global__ void peak_queue_depth(const unsigned short *__restrict__ depth, int *__restrict__ peak, int nport,
                                 int nsamp) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nport) return;
  int m = 0;
  for (int t = 0; t < nsamp; ++t) m = max(m, int(depth[size_t(q) * nsamp + t]));
  peak[q] = m;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nport = int(args.get("ports", 1 << 20)), nsamp = int(args.get("samples", 32));
  if (nport < 1 || nsamp < 1) {
    std::fprintf(stderr, "queue_depth: --ports and --samples must be at least 1\n");
    return 2;
  }
  // Depths from xorshift64*, four 16-bit samples a draw: shallow (0 to 511,
  // the low 9 bits of each), except that one draw in 32 carries a burst of
  // up to 32767 cells in one of its samples.
  const size_t ns = size_t(nport) * size_t(nsamp);
  std::vector<unsigned short> depth(ns + 4);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1841u;
  for (size_t k = 0; k < ns; k += 4) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    unsigned long long w = h & 0x01FF01FF01FF01FFull;
    if ((h >> 59) == 0u) w |= ((h >> 20) & 0x7E00ull) << (16 * ((h >> 40) & 3u));
    std::memcpy(depth.data() + k, &w, 8);
  }
  unsigned short *ddepth = loops::to_device(depth);
  int *dpeak = loops::device_zeros<int>(size_t(nport));
  loops::timed(args, 2.0 * double(ns) + 4.0 * nport, [&] {
    peak_queue_depth<<<(nport + QD_BLOCK - 1) / QD_BLOCK, QD_BLOCK>>>(ddepth, dpeak, nport, nsamp);
  });
  std::vector<int> got = loops::from_device(dpeak, size_t(nport));
  // Integer maxima: exact; the serial reference checks every 4th port.
  size_t bad = 0, burst = 0;
  for (int q = 0; q < nport; q += 4) {
    int m = 0;
    for (int t = 0; t < nsamp; ++t) m = std::max(m, int(depth[size_t(q) * size_t(nsamp) + size_t(t)]));
    burst += m > 511;
    if (got[size_t(q)] != m) ++bad;
  }
  std::printf("queue_depth: %d ports of %d samples, %zu of the checked burst%s\n", nport, nsamp, burst,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
