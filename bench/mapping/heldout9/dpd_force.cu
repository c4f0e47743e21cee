// Held-out case (bench/mapping/heldout9.tsv): the conservative force of
// dissipative particle dynamics over Verlet neighbour lists (the soft
// pair force F = a (1 - r / rc) r_hat of Groot and Warren, as a DPD or
// coarse-grained MD code computes it once per step from prebuilt lists): the
// positions are three separate arrays (struct of arrays), particle i's list
// is nbr[nbr_start[i] .. nbr_start[i + 1]), and one thread per particle sums
// the force of every neighbour inside the cut-off into three components. Three
// float sums with three gathers, a compare and a square root per entry;
// power-law and regular list lengths (the rows of a CSR matrix). Written for
// issue 22's ninth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef DPD_BLOCK
#define DPD_BLOCK 64
#endif

// Forces in units of the repulsion parameter a.
#define DPD_A 1.0f
#define DPD_RC 0.5f

__global__ void dpd_conservative_force(int n, const int *nbr_start, const int *nbr, const float *px, const float *py,
                                       const float *pz, float *fx, float *fy, float *fz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float xi = px[i];
    float yi = py[i];
    float zi = pz[i];
    float ax = 0.0f;
    float ay = 0.0f;
    float az = 0.0f;
    for (int k = nbr_start[i]; k < nbr_start[i + 1]; ++k) {
      int j = nbr[k];
      float dx = xi - px[j];
      float dy = yi - py[j];
      float dz = zi - pz[j];
      float r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < DPD_RC * DPD_RC && r2 > 1e-12f) {
        float s = DPD_A * (1.0f / sqrtf(r2) - 1.0f / DPD_RC);
        ax += s * dx;
        ay += s * dy;
        az += s * dz;
      }
    }
    fx[i] = ax;
    fy[i] = ay;
    fz[i] = az;
  }
}

static float unit_hash(unsigned i, unsigned salt) {  // in [0, 1)
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
    std::fprintf(stderr, "dpd_force: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 911)));
  // Particles uniform in the unit box: a listed pair lies inside the cut-off
  // (0.5) about four times in ten.
  std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n)), z(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    x[size_t(i)] = unit_hash(unsigned(i), 912u);
    y[size_t(i)] = unit_hash(unsigned(i), 913u);
    z[size_t(i)] = unit_hash(unsigned(i), 914u);
  }
  int *start = loops::to_device(a.rowptr), *nbr = loops::to_device(a.col);
  float *dx = loops::to_device(x), *dy = loops::to_device(y), *dz = loops::to_device(z);
  float *fx = loops::device_zeros<float>(size_t(n)), *fy = loops::device_zeros<float>(size_t(n)),
        *fz = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 16.0 * a.col.size() + 28.0 * n, [&] {
    dpd_conservative_force<<<(n + DPD_BLOCK - 1) / DPD_BLOCK, DPD_BLOCK>>>(n, start, nbr, dx, dy, dz, fx, fy, fz);
  });
  std::vector<float> gx = loops::from_device(fx, size_t(n)), gy = loops::from_device(fy, size_t(n)),
                     gz = loops::from_device(fz, size_t(n));
  // The reference in double; each term is at most 1 in size, and the float
  // sums (in any order) stay within 1e-3 + 1e-3 |F| of it on these lists.
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    double ax = 0, ay = 0, az = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k) {
      const size_t j = size_t(a.col[size_t(k)]);
      const float dxf = x[size_t(i)] - x[j], dyf = y[size_t(i)] - y[j], dzf = z[size_t(i)] - z[j];
      const float r2 = dxf * dxf + dyf * dyf + dzf * dzf;
      if (r2 < 0.25f && r2 > 1e-12f) {
        const double s = 1.0 / std::sqrt(double(r2)) - 2.0;
        ax += s * dxf;
        ay += s * dyf;
        az += s * dzf;
      }
    }
    if (std::fabs(gx[size_t(i)] - ax) > 1e-3 + 1e-3 * std::fabs(ax) ||
        std::fabs(gy[size_t(i)] - ay) > 1e-3 + 1e-3 * std::fabs(ay) ||
        std::fabs(gz[size_t(i)] - az) > 1e-3 + 1e-3 * std::fabs(az))
      ++bad;
  }
  std::printf("dpd_force: %d particles, %zu list entries%s\n", n, a.col.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(gx);
  res.add(gy);
  res.add(gz);
  return bad ? 1 : 0;
}
