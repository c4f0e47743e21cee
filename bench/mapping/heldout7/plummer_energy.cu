// Held-out case (bench/mapping/heldout7.tsv): the near-field potential of every
// particle from its neighbour list with Plummer softening (the short-range
// part of a tree-code or P3M N-body step, or the energy check of an MD code
// after its cell-list pass, one particle per thread as neighbour-list kernels
// run it; here the lists are CSR rows of random neighbours): for each
// neighbour j the particle gathers j's position and mass and adds
// m_j / sqrt(r^2 + eps^2). A float sum with four gathers and a reciprocal
// square root per entry; power-law (a few crowded particles) and regular
// lists. Written for issue 22's seventh held-out set, before any tuning on
// it; no weight of the mapping model was tuned on it. (It replaces, on the
// same lists and particles, a soft pair force (three sums) and then an SPH
// density (a sum under a cut-off), for which no rewrite was offered.)
#include "loops_harness.cuh"

#ifndef PLUM_BLOCK
#define PLUM_BLOCK 128
#endif

__global__ void plummer_potential(int n, const int *rowptr, const int *nbr, const float *px, const float *py,
                                  const float *pz, const float *mass, float eps2, float *phi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float xi = px[i];
    float yi = py[i];
    float zi = pz[i];
    float s = 0.0f;
    for (int e = rowptr[i]; e < rowptr[i + 1]; ++e) {
      int j = nbr[e];
      float dx = px[j] - xi;
      float dy = py[j] - yi;
      float dz = pz[j] - zi;
      s += mass[j] * rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
    }
    phi[i] = s;
  }
}

static float hash_unit(unsigned i, unsigned salt) {  // in [0, 1)
  i = i * 0x9E3779B9u + salt;
  i ^= i >> 16;
  i *= 0x7FEB352Du;
  i ^= i >> 15;
  i *= 0x846CA68Bu;
  i ^= i >> 16;
  return float(i >> 8) * (1.0f / 16777216.0f);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 131072)), avg = int(args.get("avg", 8));
  if (n < 1) {
    std::fprintf(stderr, "plummer_energy: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 741)));
  // Positions in a box of side 4, masses in [0.5, 1.5); softening 0.1.
  std::vector<float> px(static_cast<size_t>(n)), py(px.size()), pz(px.size()), mass(px.size());
  for (int i = 0; i < n; ++i) {
    px[size_t(i)] = 4.0f * hash_unit(unsigned(i), 742u);
    py[size_t(i)] = 4.0f * hash_unit(unsigned(i), 743u);
    pz[size_t(i)] = 4.0f * hash_unit(unsigned(i), 744u);
    mass[size_t(i)] = 0.5f + hash_unit(unsigned(i), 745u);
  }
  const float eps2 = 0.01f;
  int *rowptr = loops::to_device(a.rowptr), *nbr = loops::to_device(a.col);
  float *dpx = loops::to_device(px), *dpy = loops::to_device(py), *dpz = loops::to_device(pz),
        *dmass = loops::to_device(mass), *phi = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 20.0 * a.col.size() + 20.0 * n, [&] {
    plummer_potential<<<(n + PLUM_BLOCK - 1) / PLUM_BLOCK, PLUM_BLOCK>>>(n, rowptr, nbr, dpx, dpy, dpz, dmass, eps2,
                                                                         phi);
  });
  std::vector<float> got = loops::from_device(phi, size_t(n));
  // The reference in double. Terms are positive and at most 15; rsqrtf's
  // error (2 ulp) and float sums in any order stay within 1e-3 relative.
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int e = a.rowptr[size_t(i)]; e < a.rowptr[size_t(i) + 1]; ++e) {
      const size_t j = size_t(a.col[size_t(e)]);
      const double dx = double(px[j]) - px[size_t(i)], dy = double(py[j]) - py[size_t(i)],
                   dz = double(pz[j]) - pz[size_t(i)];
      s += mass[j] / std::sqrt(dx * dx + dy * dy + dz * dz + double(eps2));
    }
    if (std::fabs(got[size_t(i)] - s) > 1e-3 * std::max(1.0, std::fabs(s))) ++bad;
  }
  std::printf("plummer_energy: %d particles, %zu neighbour entries%s\n", n, a.col.size(),
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
