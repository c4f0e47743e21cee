// Held-out case (bench/mapping/heldout13.tsv): the density of a
// one-dimensional Gaussian mixture at many samples (the E-step's denominator
// of EM for a mixture model, or the likelihood pass of a kernel density
// estimate, one sample per thread): the thread sums weight x (1 / sd) x
// exp(-z^2 / 2), z = (x - mean) / sd, over all NCOMP components, held as an
// array of 16-byte Component records every thread reads in the same order,
// in FLOAT with expf. A float sum over a PARAMETER-TRIP loop of broadcast
// array-of-structs records; 48 and 384 components. Written for issue 22's
// thirteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef MP_BLOCK
#define MP_BLOCK 256
#endif

struct Component {
  float mean;
  float inv_sd;
  float weight;  // mixing weight / sqrt(2 pi)
  float pad;
};

__global__ void mixture_pdf(const float *__restrict__ x, const Component *__restrict__ comp,
                            float *__restrict__ density, int nsamples, int ncomp) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nsamples) return;
  const float xs = x[s];
  float p = 0.0f;
  for (int k = 0; k < ncomp; ++k) {
    const float z = (xs - comp[k].mean) * comp[k].inv_sd;
    p += comp[k].weight * comp[k].inv_sd * expf(-0.5f * z * z);
  }
  density[s] = p;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nsamples = int(args.get("samples", 1 << 22)), ncomp = int(args.get("components", 48));
  if (nsamples < 1 || ncomp < 1) {
    std::fprintf(stderr, "mixture_pdf: --samples and --components must be at least 1\n");
    return 2;
  }
  // Samples in [0, 10); means in [0, 10), standard deviations 0.2 to 1,
  // weights summing to 1.
  std::vector<float> x = loops::random_floats(size_t(nsamples), 1351u, 0.0f, 10.0f);
  std::vector<float> mu = loops::random_floats(size_t(ncomp), 1352u, 0.0f, 10.0f);
  std::vector<float> sd = loops::random_floats(size_t(ncomp), 1353u, 0.2f, 1.0f);
  std::vector<float> w = loops::random_floats(size_t(ncomp), 1354u, 0.5f, 1.5f);
  double wsum = 0;
  for (float v : w) wsum += v;
  std::vector<Component> comp(static_cast<size_t>(ncomp));
  for (size_t k = 0; k < comp.size(); ++k)
    comp[k] = Component{mu[k], 1.0f / sd[k], float(w[k] / wsum / std::sqrt(2.0 * 3.14159265358979)), 0.0f};
  float *dx = loops::to_device(x);
  Component *dcomp = loops::to_device(comp);
  float *dens = loops::device_zeros<float>(size_t(nsamples));
  loops::timed(args, 8.0 * nsamples + 16.0 * ncomp, [&] {
    mixture_pdf<<<(nsamples + MP_BLOCK - 1) / MP_BLOCK, MP_BLOCK>>>(dx, dcomp, dens, nsamples, ncomp);
  });
  std::vector<float> got = loops::from_device(dens, size_t(nsamples));
  // Every term is non-negative: float sums with expf in any order stay
  // within 1e-4 (relative) of the double reference; every 41st sample.
  size_t bad = 0;
  for (int s = 0; s < nsamples; s += 41) {
    double want = 0;
    for (const Component &c : comp) {
      const double z = (double(x[size_t(s)]) - c.mean) * c.inv_sd;
      want += double(c.weight) * c.inv_sd * std::exp(-0.5 * z * z);
    }
    if (std::fabs(got[size_t(s)] - want) > 1e-4 * std::max(1e-3, std::fabs(want))) ++bad;
  }
  std::printf("mixture_pdf: %d samples, %d components%s\n", nsamples, ncomp, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
