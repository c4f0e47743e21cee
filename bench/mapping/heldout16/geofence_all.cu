// Held-out case (bench/mapping/heldout16.tsv): which tracked vehicles are
// inside EVERY one of a route's geofences (the conformance test a fleet
// tracker or a drone-corridor monitor runs on every position report, one
// report per thread): the NFENCE circular fences are small float arrays
// every thread reads in the same order, and the thread keeps a LOGICAL AND,
// written `in &= ... <= rad2[g]` on an int flag, of a squared-distance test
// over a MACRO-BOUNDED loop; 16 and 96 fences. Written for issue 22's
// sixteenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef GF_BLOCK
#define GF_BLOCK 256
#endif

#ifndef NFENCE
#define NFENCE 16
#endif

__global__ void inside_all_fences(const float *__restrict__ px, const float *__restrict__ py,
                                  const float *__restrict__ cx, const float *__restrict__ cy,
                                  const float *__restrict__ rad2, int *__restrict__ inside, int nrep) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nrep) return;
  const float x = px[r], y = py[r];
  int in = 1;
  for (int g = 0; g < NFENCE; ++g) in &= (x - cx[g]) * (x - cx[g]) + (y - cy[g]) * (y - cy[g]) <= rad2[g];
  inside[r] = in;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nrep = int(args.get("reports", 1 << 23));
  if (nrep < 1) {
    std::fprintf(stderr, "geofence_all: --reports must be at least 1\n");
    return 2;
  }
  // Positions in [-1, 1)^2; fence centres within 0.2 of the origin, radii
  // 0.9 to 1.3, so most reports pass most fences and some pass all.
  std::vector<float> px = loops::random_floats(size_t(nrep), 1631u), py = loops::random_floats(size_t(nrep), 1632u);
  std::vector<float> cx = loops::random_floats(NFENCE, 1633u, -0.2f, 0.2f),
                     cy = loops::random_floats(NFENCE, 1634u, -0.2f, 0.2f),
                     rad = loops::random_floats(NFENCE, 1635u, 0.9f, 1.3f), rad2(NFENCE);
  for (int g = 0; g < NFENCE; ++g) rad2[size_t(g)] = rad[size_t(g)] * rad[size_t(g)];
  float *dpx = loops::to_device(px), *dpy = loops::to_device(py), *dcx = loops::to_device(cx),
        *dcy = loops::to_device(cy), *drad2 = loops::to_device(rad2);
  int *din = loops::device_zeros<int>(size_t(nrep));
  loops::timed(args, 12.0 * nrep, [&] {
    inside_all_fences<<<(nrep + GF_BLOCK - 1) / GF_BLOCK, GF_BLOCK>>>(dpx, dpy, dcx, dcy, drad2, din, nrep);
  });
  std::vector<int> got = loops::from_device(din, size_t(nrep));
  // A flag from float tests: a report within 1e-5 of a fence's edge may go
  // either way (contraction), so those are not counted as differences; the
  // serial reference checks every 3rd report.
  size_t bad = 0, all = 0;
  for (int r = 0; r < nrep; r += 3) {
    int in = 1;
    bool edge = false;
    for (int g = 0; g < NFENCE; ++g) {
      const float dx = px[size_t(r)] - cx[size_t(g)], dy = py[size_t(r)] - cy[size_t(g)];
      const float d2 = dx * dx + dy * dy;
      in &= d2 <= rad2[size_t(g)];
      edge |= std::fabs(d2 - rad2[size_t(g)]) < 1e-5f;
    }
    all += size_t(in);
    if (got[size_t(r)] != in && !edge) ++bad;
  }
  std::printf("geofence_all: %d reports, %d fences, %zu of the checked inside all%s\n", nrep, NFENCE, all,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
