// Held-out case (bench/mapping/heldout2.tsv): a degree-weighted neighbour sum
// (the per-vertex score of a centrality or a degree-discounted similarity
// pass): each vertex adds, over its out-edges, the edge's weight times the
// degree of the vertex it points to. An irregular CSR loop with one
// contiguous and one gathered load per step.
// Held-out: no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef WD_BLOCK
#define WD_BLOCK 256
#endif

__global__ void weighted_degree(int nv, const int *start, const int *dst, const float *w, const int *degree,
                                float *score) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    float s = 0.0f;
    for (int e = start[v]; e < start[v + 1]; e++)
      s += w[e] * (float)degree[dst[e]];
    score[v] = s;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nv = int(args.get("vertices", 262144)), avg = int(args.get("avg", 16));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr g = loops::make_csr(nv, nv, avg, powerlaw, unsigned(args.get("seed", 111)));
  std::vector<int> deg(static_cast<size_t>(nv));
  for (int v = 0; v < nv; ++v) deg[size_t(v)] = g.rowptr[size_t(v) + 1] - g.rowptr[size_t(v)];
  // Edge weights in [0, 1), scaled so the sums stay near 1 for the tolerance.
  for (float &x : g.val) x = (x + 1.0f) * 0.5f / float(avg * avg);
  int *start = loops::to_device(g.rowptr), *dst = loops::to_device(g.col), *ddeg = loops::to_device(deg);
  float *w = loops::to_device(g.val), *score = loops::device_zeros<float>(size_t(nv));
  loops::timed(args, 12.0 * g.col.size() + 8.0 * nv, [&] {
    weighted_degree<<<(nv + WD_BLOCK - 1) / WD_BLOCK, WD_BLOCK>>>(nv, start, dst, w, ddeg, score);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(score, size_t(nv)));
  return 0;
}
