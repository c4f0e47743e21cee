// Held-out case (bench/mapping/heldout12.tsv): the density summation of
// smoothed-particle hydrodynamics (the first pass of every SPH step, one
// particle per thread, over a neighbour list built by a cell search): row i of
// a CSR matrix lists particle i's neighbour candidates, and the thread copies
// each neighbour's whole Particle record into a local and sums m_j W(r_ij, h)
// with the poly6 smoothing kernel, zero beyond the smoothing length. A float
// sum over a row of gathered array-of-structs records, the struct read into a
// local inside the loop; power-law and regular rows. Written for issue 22's
// twelfth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef SPH_BLOCK
#define SPH_BLOCK 128
#endif

struct Particle {
  float x, y, z;
  float mass;
};

__global__ void sph_density(const int *__restrict__ nbr_start, const int *__restrict__ nbr,
                            const Particle *__restrict__ parts, float *__restrict__ rho, int n, float h2,
                            float poly6) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = parts[i].x, yi = parts[i].y, zi = parts[i].z;
  float sum = 0.0f;
  for (int k = nbr_start[i]; k < nbr_start[i + 1]; ++k) {
    const Particle q = parts[nbr[k]];
    const float dx = q.x - xi, dy = q.y - yi, dz = q.z - zi;
    const float r2 = dx * dx + dy * dy + dz * dz;
    if (r2 < h2) {
      const float d = h2 - r2;
      sum += q.mass * d * d * d;
    }
  }
  rho[i] = poly6 * sum;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "sph_density: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1201)));
  const size_t nnz = a.col.size();
  // Particles in the unit cube, masses 0.5 to 1.5; a smoothing length of
  // 0.6 keeps about half of the (random) candidates inside it.
  std::vector<float> pos = loops::random_floats(3 * size_t(n), 1202u, 0.0f, 1.0f);
  std::vector<float> mass = loops::random_floats(size_t(n), 1203u, 0.5f, 1.5f);
  std::vector<Particle> parts(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    parts[size_t(i)] = Particle{pos[3 * size_t(i)], pos[3 * size_t(i) + 1], pos[3 * size_t(i) + 2], mass[size_t(i)]};
  const float h = 0.6f, h2 = h * h;
  const float poly6 = float(315.0 / (64.0 * 3.14159265358979 * std::pow(double(h), 9.0)));
  int *start = loops::to_device(a.rowptr), *dnbr = loops::to_device(a.col);
  Particle *dparts = loops::to_device(parts);
  float *rho = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * nnz + 16.0 * nnz + 24.0 * n, [&] {
    sph_density<<<(n + SPH_BLOCK - 1) / SPH_BLOCK, SPH_BLOCK>>>(start, dnbr, dparts, rho, n, h2, poly6);
  });
  std::vector<float> got = loops::from_device(rho, size_t(n));
  // Every term is non-negative: float sums in any order stay within 1e-3
  // (relative) of the double reference, checked on every 3rd particle.
  size_t bad = 0;
  for (int i = 0; i < n; i += 3) {
    const Particle &p = parts[size_t(i)];
    double want = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k) {
      const Particle &q = parts[size_t(a.col[size_t(k)])];
      const double dx = double(q.x) - p.x, dy = double(q.y) - p.y, dz = double(q.z) - p.z;
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < double(h2)) want += q.mass * (double(h2) - r2) * (double(h2) - r2) * (double(h2) - r2);
    }
    want *= poly6;
    if (std::fabs(got[size_t(i)] - want) > 1e-3 * std::max(1.0, std::fabs(want))) ++bad;
  }
  std::printf("sph_density: %d particles, %zu candidates%s\n", n, nnz, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
