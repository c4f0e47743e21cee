// Held-out case (bench/mapping/heldout9.tsv): one pull step of a weighted
// PageRank (the edge-weighted form that GPU graph-analytics codes run on
// interaction or citation graphs): row v of a CSR matrix lists v's
// in-neighbours u with the weight w of the edge u -> v, and one thread per
// row sums every neighbour's rank times w divided by the neighbour's total
// out-weight, then applies the damping. Ranks are kept scaled by the vertex
// count (about 1 each, as some codes do to stay clear of float underflow).
// A float sum with a gather of two per-vertex arrays and a division per
// entry; power-law, regular and "longrows" rows. Written for issue 22's
// ninth held-out set, before any tuning on it; no weight of the mapping model
// was tuned on it.
#include "loops_harness.cuh"

#ifndef WPR_BLOCK
#define WPR_BLOCK 128
#endif

const float kDamping = 0.85f;

__global__ void weighted_rank_pull(const int *__restrict__ rowptr, const int *__restrict__ col,
                                   const float *__restrict__ w, const float *__restrict__ rank,
                                   const float *__restrict__ out_weight, float *__restrict__ next, int n) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  float acc = 0.0f;
  for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
    const int u = col[e];
    acc += w[e] * rank[u] / out_weight[u];
  }
  next[v] = (1.0f - kDamping) + kDamping * acc;
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
  const int n = int(args.get("rows", 262144)), avg = int(args.get("avg", 8));
  if (n < 1) {
    std::fprintf(stderr, "weighted_rank: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 901)));
  // Edge weights in [0.25, 1.25); a vertex's out-weight is the sum of the
  // weights of the entries naming it (1 for a vertex no row names).
  std::vector<float> w(a.val.size()), out_weight(static_cast<size_t>(n), 0.0f), rank(static_cast<size_t>(n));
  for (size_t e = 0; e < w.size(); ++e) w[e] = 0.25f + std::fabs(a.val[e]);
  for (size_t e = 0; e < w.size(); ++e) out_weight[size_t(a.col[e])] += w[e];
  for (int v = 0; v < n; ++v) {
    if (out_weight[size_t(v)] == 0.0f) out_weight[size_t(v)] = 1.0f;
    rank[size_t(v)] = 0.5f + unit_hash(unsigned(v), 902u);
  }
  int *rowptr = loops::to_device(a.rowptr), *col = loops::to_device(a.col);
  float *dw = loops::to_device(w), *drank = loops::to_device(rank), *dout = loops::to_device(out_weight);
  float *next = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 8.0 * a.col.size() + 8.0 * a.col.size() + 12.0 * n, [&] {
    weighted_rank_pull<<<(n + WPR_BLOCK - 1) / WPR_BLOCK, WPR_BLOCK>>>(rowptr, col, dw, drank, dout, next, n);
  });
  std::vector<float> got = loops::from_device(next, size_t(n));
  // The reference in double from the same float inputs; every term is
  // positive, so float sums in any order stay within 1e-3 (relative) of it.
  size_t bad = 0;
  for (int v = 0; v < n; ++v) {
    double acc = 0;
    for (int e = a.rowptr[size_t(v)]; e < a.rowptr[size_t(v) + 1]; ++e) {
      const size_t u = size_t(a.col[size_t(e)]);
      acc += double(w[size_t(e)]) * rank[u] / out_weight[u];
    }
    const double want = (1.0 - 0.85) + 0.85 * acc;
    if (std::fabs(got[size_t(v)] - want) > 1e-3 * std::max(1.0, std::fabs(want))) ++bad;
  }
  std::printf("weighted_rank: %d vertices, %zu entries%s\n", n, a.col.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
