// Neighbour sum through user __device__ helpers: for each vertex, the sum of
// a hashed value of each neighbour, scaled by a weight the helper loads. The
// loop body only calls pure helpers (no stores, no atomics), so the analysis
// treats it as a + reduction and the load-balancing templates, CTE and
// sub-warp apply (StatementEffects looks into the helpers' bodies).
#include "loops_harness.cuh"
#include <nestor/cte.cuh>

__device__ unsigned hashed(int u) { return (unsigned(u) * 2654435761u) % 1000u + 1u; }
__device__ unsigned weighted(const int *weight, int u) { return hashed(u) * unsigned(weight[u] % 7 + 1); }

__global__ void helper_sum(const int *offsets, const int *adj, const int *weight, unsigned *sums, int vertices) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  unsigned sum = 0; // wraps: unsigned + is associative, so any order gives the same bits
  // Rewrite loop with CTE ("Eliminating Intra-warp Load Imbalance in Irregular Nested Patterns via Collaborative Task Engagement", III-B): the warp expands its
  // threads' ranges into one list of fine tasks and reduces them per owner.
  sum = nestor::cte::for_each_index<128, nestor::cte::scanned>(
      offsets[v], offsets[v + 1],
      [=](int e) { return weighted(weight, adj[e]); },
      nestor::op::add{}, sum);
  sums[v] = sum;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 20000)), avg = int(args.get("avg", 12));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr g = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 9)));
  int *off = loops::to_device(g.rowptr), *adj = loops::to_device(g.col);
  std::vector<int> w(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) w[size_t(i)] = i * 31 + 7;
  int *weight = loops::to_device(w);
  unsigned *out = loops::device_zeros<unsigned>(size_t(n));
  loops::timed(args, 16.0 * g.col.size() + 12.0 * n,
               [&] { helper_sum<<<(n + 127) / 128, 128>>>(off, adj, weight, out, n); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
