// Held-out case (bench/mapping/heldout15.tsv): which particles of a 2-D
// simulation touch any of a small set of circular obstacles this step (the
// broad collision test a particle-in-cell, a crowd or a DEM code runs before
// resolving contacts, one particle per thread): the obstacles' centres and
// radii are three float arrays every thread reads in the same order, and the
// thread ORs together `the squared distance to obstacle o is within its
// squared radius` into an int flag, `hit |= ...`. A LOGICAL OR over a
// PARAMETER-TRIP loop (o < nobst) of broadcast float tests; 64 and 512
// obstacles. Written for issue 22's fifteenth held-out set, before any tuning
// on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef OH_BLOCK
#define OH_BLOCK 128
#endif

__global__ void any_obstacle_hit(const float *__restrict__ px, const float *__restrict__ py,
                                 const float *__restrict__ ox, const float *__restrict__ oy,
                                 const float *__restrict__ r2, int *__restrict__ hit, int np, int nobst) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= np) return;
  const float x = px[p];
  const float y = py[p];
  int h = 0;
  for (int o = 0; o < nobst; ++o) h |= (x - ox[o]) * (x - ox[o]) + (y - oy[o]) * (y - oy[o]) <= r2[o];
  hit[p] = h;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int np = int(args.get("particles", 1 << 23)), nobst = int(args.get("obstacles", 64));
  if (np < 1 || nobst < 1) {
    std::fprintf(stderr, "obstacle_hit: --particles and --obstacles must be at least 1\n");
    return 2;
  }
  // Particles and obstacle centres on a 1/64 grid of [0, 1024)^2 (squares
  // and sums exact in float wherever they come near a radius of 16 or
  // less); radii 1 to 16 in whole units, so that a few percent of the
  // particles are hit with 64 obstacles.
  std::vector<float> px = loops::random_floats(size_t(np), 1551u, 0.0f, 1024.0f);
  std::vector<float> py = loops::random_floats(size_t(np), 1552u, 0.0f, 1024.0f);
  std::vector<float> ox = loops::random_floats(size_t(nobst), 1553u, 0.0f, 1024.0f);
  std::vector<float> oy = loops::random_floats(size_t(nobst), 1554u, 0.0f, 1024.0f);
  std::vector<float> rad = loops::random_floats(size_t(nobst), 1555u, 1.0f, 17.0f);
  for (float &v : px) v = std::floor(v * 64.0f) / 64.0f;
  for (float &v : py) v = std::floor(v * 64.0f) / 64.0f;
  for (float &v : ox) v = std::floor(v * 64.0f) / 64.0f;
  for (float &v : oy) v = std::floor(v * 64.0f) / 64.0f;
  std::vector<float> r2(static_cast<size_t>(nobst));
  for (int o = 0; o < nobst; ++o) r2[size_t(o)] = std::floor(rad[size_t(o)]) * std::floor(rad[size_t(o)]);
  float *dpx = loops::to_device(px), *dpy = loops::to_device(py), *dox = loops::to_device(ox),
        *doy = loops::to_device(oy), *dr2 = loops::to_device(r2);
  int *dhit = loops::device_zeros<int>(size_t(np));
  loops::timed(args, 12.0 * np + 12.0 * nobst, [&] {
    any_obstacle_hit<<<(np + OH_BLOCK - 1) / OH_BLOCK, OH_BLOCK>>>(dpx, dpy, dox, doy, dr2, dhit, np, nobst);
  });
  std::vector<int> got = loops::from_device(dhit, size_t(np));
  // Distances in double (the float ones are exact near the boundary, fused
  // or not): integer result; the serial reference checks every 7th particle.
  size_t bad = 0, hits = 0;
  for (int p = 0; p < np; p += 7) {
    int h = 0;
    for (int o = 0; o < nobst; ++o) {
      const double dx = double(px[size_t(p)]) - ox[size_t(o)], dy = double(py[size_t(p)]) - oy[size_t(o)];
      h |= dx * dx + dy * dy <= double(r2[size_t(o)]);
    }
    hits += h;
    if (got[size_t(p)] != h) ++bad;
  }
  std::printf("obstacle_hit: %d particles, %d obstacles, %zu of the checked hit%s\n", np, nobst, hits,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
