// Held-out case (bench/mapping/heldout12.tsv): the distance from every demand
// point to its nearest candidate site (the assignment pass of a facility-
// location or k-medoids heuristic over a sparse candidate list, one demand
// point per thread): row p of a CSR matrix lists the sites within p's
// service area, the sites' coordinates are stored as a structure of arrays,
// and the thread takes the minimum over its row of a weighted Euclidean
// distance (a sqrtf per entry, scaled by the site's cost factor). A float min
// over a row of gathered SoA fields; power-law and regular rows. Written for
// issue 22's twelfth held-out set, before any tuning on it; no weight of the
// mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef NS_BLOCK
#define NS_BLOCK 128
#endif

struct Sites {
  const float *x;
  const float *y;
  const float *cost;
};

__global__ void nearest_candidate(const int *__restrict__ cand_start, const int *__restrict__ cand, Sites sites,
                                  const float *__restrict__ px, const float *__restrict__ py,
                                  float *__restrict__ best, int npoints) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npoints) return;
  const float x = px[p], y = py[p];
  float d = 1e30f;
  for (int k = cand_start[p]; k < cand_start[p + 1]; ++k) {
    const int s = cand[k];
    const float dx = sites.x[s] - x, dy = sites.y[s] - y;
    d = fminf(d, sites.cost[s] * sqrtf(dx * dx + dy * dy));
  }
  best[p] = d;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 229376)), avg = int(args.get("avg", 5));
  if (n < 1) {
    std::fprintf(stderr, "nearest_site: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1231)));
  const size_t nnz = a.col.size();
  // As many sites as points, all in the unit square; cost factors 1 to 2.
  std::vector<float> sx = loops::random_floats(size_t(n), 1232u, 0.0f, 1.0f);
  std::vector<float> sy = loops::random_floats(size_t(n), 1233u, 0.0f, 1.0f);
  std::vector<float> sc = loops::random_floats(size_t(n), 1234u, 1.0f, 2.0f);
  std::vector<float> px = loops::random_floats(size_t(n), 1235u, 0.0f, 1.0f);
  std::vector<float> py = loops::random_floats(size_t(n), 1236u, 0.0f, 1.0f);
  Sites sites{loops::to_device(sx), loops::to_device(sy), loops::to_device(sc)};
  int *start = loops::to_device(a.rowptr), *cand = loops::to_device(a.col);
  float *dpx = loops::to_device(px), *dpy = loops::to_device(py), *best = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * nnz + 12.0 * nnz + 16.0 * n, [&] {
    nearest_candidate<<<(n + NS_BLOCK - 1) / NS_BLOCK, NS_BLOCK>>>(start, cand, sites, dpx, dpy, best, n);
  });
  std::vector<float> got = loops::from_device(best, size_t(n));
  // A min is exact in any order; the float terms are recomputed the same
  // way here (a point without candidates keeps 1e30).
  size_t bad = 0;
  for (int p = 0; p < n; ++p) {
    float want = 1e30f;
    for (int k = a.rowptr[size_t(p)]; k < a.rowptr[size_t(p) + 1]; ++k) {
      const size_t s = size_t(a.col[size_t(k)]);
      const float dx = sx[s] - px[size_t(p)], dy = sy[s] - py[size_t(p)];
      want = std::min(want, sc[s] * std::sqrt(dx * dx + dy * dy));
    }
    if (std::fabs(got[size_t(p)] - want) > 1e-5f * std::max(1.0f, want)) ++bad;
  }
  std::printf("nearest_site: %d points, %zu candidates%s\n", n, nnz, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
