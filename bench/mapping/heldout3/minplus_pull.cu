// Held-out case (bench/mapping/heldout3.tsv): one pull-style Bellman-Ford
// relaxation (the min-plus step of GPU shortest-path and label-correcting
// codes, LonestarGPU's topology-driven SSSP in pull form): each vertex takes
// the smallest of its own distance and, over its in-edges' CSR range, each
// in-neighbour's distance plus the edge's length. An irregular min reduction
// (fminf), on power-law and near-regular graphs.
// Written for issue 22's third held-out set, before any tuning on it; no
// weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef RELAX_PULL_BLOCK
#define RELAX_PULL_BLOCK 128
#endif

__global__ void relax_pull(int nv, const int *in_start, const int *in_src, const float *in_len, const float *dist,
                           float *dist_next) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    float best = dist[v];
    for (int e = in_start[v]; e < in_start[v + 1]; ++e)
      best = fminf(best, dist[in_src[e]] + in_len[e]);
    dist_next[v] = best;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nv = int(args.get("vertices", 262144)), avg = int(args.get("avg", 16));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  // Row v of the CSR holds v's in-neighbours; edge lengths in [0.5, 1.5).
  loops::Csr in = loops::make_csr(nv, nv, avg, powerlaw, unsigned(args.get("seed", 351)));
  for (float &x : in.val) x = 1.0f + 0.5f * x;
  std::vector<float> dist = loops::random_floats(size_t(nv), 352, 0.f, 16.f);
  int *start = loops::to_device(in.rowptr), *src = loops::to_device(in.col);
  float *len = loops::to_device(in.val), *ddist = loops::to_device(dist);
  float *next = loops::device_zeros<float>(size_t(nv));
  loops::timed(args, 12.0 * in.col.size() + 12.0 * nv, [&] {
    relax_pull<<<(nv + RELAX_PULL_BLOCK - 1) / RELAX_PULL_BLOCK, RELAX_PULL_BLOCK>>>(nv, start, src, len, ddist,
                                                                                      next);
  });
  std::vector<float> got = loops::from_device(next, size_t(nv));
  // A minimum of the same float sums in any order: exact.
  size_t bad = 0;
  for (int v = 0; v < nv; ++v) {
    float best = dist[size_t(v)];
    for (int e = in.rowptr[size_t(v)]; e < in.rowptr[size_t(v) + 1]; ++e)
      best = std::min(best, dist[size_t(in.col[size_t(e)])] + in.val[size_t(e)]);
    if (got[size_t(v)] != best) ++bad;
  }
  std::printf("minplus_pull: %d vertices, %zu edges%s\n", nv, in.col.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
