// Held-out case (bench/mapping/heldout20.tsv): how many of every link's last
// frames were dropped (the loss counter a network telemetry collector or a
// video-streaming QoE monitor keeps per link, one link per thread): link l's
// nframe UNSIGNED CHAR status codes are stored together (row-major,
// l x nframe + f), the "dropped" code is a kernel argument, and the thread
// COUNTS, into an int, the frames whose status EQUALS it over a
// PARAMETER-TRIP loop (f < nframe); 64 and 256 frames. An INT COUNT of an
// equality test on a row-major unsigned char. Written for issue 22's
// twentieth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include <cstring>

#include "loops_harness.cuh"

#ifndef FD_BLOCK
#define FD_BLOCK 128
#endif

__global__ void count_dropped_frames(const unsigned char *__restrict__ status, int *__restrict__ dropped, int nlink,
                                     int nframe, unsigned char code) {
  const int l = blockIdx.x * blockDim.x + threadIdx.x;
  if (l >= nlink) return;
  int c = 0;
  for (int f = 0; f < nframe; ++f) c += status[size_t(l) * nframe + f] == code ? 1 : 0;
  dropped[l] = c;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nlink = int(args.get("links", 1 << 21)), nframe = int(args.get("frames", 64));
  const unsigned char code = 3;
  if (nlink < 1 || nframe < 1) {
    std::fprintf(stderr, "frame_drops: --links and --frames must be at least 1\n");
    return 2;
  }
  // Status codes from xorshift64*, eight bytes a draw, each byte's low 5
  // bits (0 to 31), so about one frame in 32 carries code 3.
  const size_t ns = size_t(nlink) * size_t(nframe);
  std::vector<unsigned char> status(ns + 8);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 2031u;
  for (size_t k = 0; k < ns; k += 8) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long w = (z * 0x2545F4914F6CDD1Dull) & 0x1F1F1F1F1F1F1F1Full;
    std::memcpy(status.data() + k, &w, 8);
  }
  unsigned char *dstatus = loops::to_device(status);
  int *ddropped = loops::device_zeros<int>(size_t(nlink));
  loops::timed(args, double(ns) + 4.0 * nlink, [&] {
    count_dropped_frames<<<(nlink + FD_BLOCK - 1) / FD_BLOCK, FD_BLOCK>>>(dstatus, ddropped, nlink, nframe, code);
  });
  std::vector<int> got = loops::from_device(ddropped, size_t(nlink));
  // Integer counts: exact; the serial reference checks every 4th link.
  size_t bad = 0, drops = 0;
  for (int l = 0; l < nlink; l += 4) {
    int c = 0;
    for (int f = 0; f < nframe; ++f) c += status[size_t(l) * size_t(nframe) + size_t(f)] == code ? 1 : 0;
    drops += size_t(c);
    if (got[size_t(l)] != c) ++bad;
  }
  std::printf("frame_drops: %d links of %d frames, %zu dropped in the checked%s\n", nlink, nframe, drops,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
