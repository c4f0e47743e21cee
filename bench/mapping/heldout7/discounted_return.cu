// Held-out case (bench/mapping/heldout7.tsv): the discounted return of every
// episode in a reinforcement-learning replay buffer (the Monte-Carlo target
// G = sum_t gamma^t r_t that a policy-gradient or evaluation pass computes
// for each stored episode): episode i holds its rewards contiguously, and one
// thread per episode sums r_t gamma^t over its steps, the discount from powf
// so that the terms are independent. A float sum over a dense contiguous row
// with a transcendental per term; 256 steps. Written for issue 22's seventh
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it.
#include "loops_harness.cuh"

#ifndef DRET_BLOCK
#define DRET_BLOCK 256
#endif

__global__ void discounted_return(const float *reward, float *ret, int episodes, int steps, float gamma) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < episodes) {
    const float *r = reward + (size_t)i * steps;
    float g = 0.0f;
    for (int t = 0; t < steps; ++t) g += r[t] * powf(gamma, (float)t);
    ret[i] = g;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int episodes = int(args.get("episodes", 131072)), steps = int(args.get("steps", 256));
  if (episodes < 1 || steps < 1) {
    std::fprintf(stderr, "discounted_return: --episodes and --steps must be at least 1\n");
    return 2;
  }
  const float gamma = 0.99f;
  // Sparse-ish rewards in [0, 1): most steps 0, some small, a few large.
  const size_t total = size_t(episodes) * steps;
  std::vector<float> reward(total);
  for (size_t j = 0; j < total; ++j) {
    unsigned h = unsigned(j) * 0x9E3779B9u + 761u;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    reward[j] = (h & 7u) == 0 ? float(h >> 8) * (1.0f / 16777216.0f) : 0.0f;
  }
  float *dreward = loops::to_device(reward), *ret = loops::device_zeros<float>(size_t(episodes));
  loops::timed(args, 4.0 * double(total) + 4.0 * episodes, [&] {
    discounted_return<<<(episodes + DRET_BLOCK - 1) / DRET_BLOCK, DRET_BLOCK>>>(dreward, ret, episodes, steps, gamma);
  });
  std::vector<float> got = loops::from_device(ret, size_t(episodes));
  // The reference in double, the discount kept as a running product; returns
  // are below 1 / (1 - gamma) = 100, and float sums of 256 terms in any order
  // stay far within 1e-3 relative.
  size_t bad = 0;
  for (int i = 0; i < episodes; ++i) {
    double g = 0, d = 1;
    for (int t = 0; t < steps; ++t, d *= double(gamma)) g += reward[size_t(i) * steps + t] * d;
    if (std::fabs(got[size_t(i)] - g) > 1e-3 * std::max(1.0, std::fabs(g))) ++bad;
  }
  std::printf("discounted_return: %d episodes x %d steps%s\n", episodes, steps,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
