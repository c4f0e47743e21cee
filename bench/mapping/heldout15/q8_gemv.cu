// Held-out case (bench/mapping/heldout15.tsv): a quantised fully-connected
// layer's integer accumulators (the int8 x uint8 matrix-vector product an
// inference engine runs before requantising, one output neuron per thread):
// output o's K signed 8-bit weights are stored together (row-major, o x K +
// k), the activation vector is K unsigned 8-bit values that every thread
// reads in the same order, and the thread sums weight x (activation - zero
// point) as an INT. An integer SUM of contiguous SIGNED CHAR weights times
// broadcast UNSIGNED CHAR activations over a PARAMETER-TRIP loop (k < K); 96
// and 768 inputs. Written for issue 22's fifteenth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef QG_BLOCK
#define QG_BLOCK 256
#endif

__global__ void q8_dense_dot(const signed char *__restrict__ w, const unsigned char *__restrict__ act, int zero_point,
                             int *__restrict__ acc, int nout, int K) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= nout) return;
  int s = 0;
  for (int k = 0; k < K; ++k) s += int(w[size_t(o) * K + k]) * (int(act[k]) - zero_point);
  acc[o] = s;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nout = int(args.get("outputs", 1 << 22)), K = int(args.get("inputs", 96));
  if (nout < 1 || K < 1) {
    std::fprintf(stderr, "q8_gemv: --outputs and --inputs must be at least 1\n");
    return 2;
  }
  // Weights from xorshift64* (eight bytes a step), activations from a 32-bit
  // hash of k; zero point 128.
  const size_t nw = size_t(nout) * size_t(K);
  std::vector<signed char> w(nw);
  unsigned long long z = 0x9E3779B97F4A7C15ull ^ 1531u;
  for (size_t i = 0; i < nw; i += 8) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    const unsigned long long h = z * 0x2545F4914F6CDD1Dull;
    for (size_t j = 0; j < 8 && i + j < nw; ++j) w[i + j] = (signed char)(unsigned char)(h >> (8 * j));
  }
  std::vector<unsigned char> act(static_cast<size_t>(K));
  for (int k = 0; k < K; ++k) {
    unsigned h = unsigned(k) * 0x9E3779B9u + 1532u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    act[size_t(k)] = (unsigned char)(h >> 5);
  }
  const int zero_point = 128;
  signed char *dw = loops::to_device(w);
  unsigned char *dact = loops::to_device(act);
  int *dacc = loops::device_zeros<int>(size_t(nout));
  loops::timed(args, double(nw) + double(K) + 4.0 * nout, [&] {
    q8_dense_dot<<<(nout + QG_BLOCK - 1) / QG_BLOCK, QG_BLOCK>>>(dw, dact, zero_point, dacc, nout, K);
  });
  std::vector<int> got = loops::from_device(dacc, size_t(nout));
  // Integer sums (at most 128 x 128 x K, far from overflow): exact in any
  // order; the serial reference checks every 5th output.
  size_t bad = 0;
  for (int o = 0; o < nout; o += 5) {
    int s = 0;
    for (int k = 0; k < K; ++k) s += int(w[size_t(o) * size_t(K) + size_t(k)]) * (int(act[size_t(k)]) - zero_point);
    if (got[size_t(o)] != s) ++bad;
  }
  std::printf("q8_gemv: %d outputs of %d inputs%s\n", nout, K, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
