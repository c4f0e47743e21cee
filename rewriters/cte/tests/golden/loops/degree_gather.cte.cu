// Degree gather over a CSR graph: for each vertex, the largest degree among
// its neighbours (a max reduction over an irregular, data-dependent range).
#include "loops_harness.cuh"
#include <nestor/cte.cuh>

__global__ void max_neighbour_degree(const int *offsets, const int *adj, int *best_out, int vertices) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  int best = 0;
  // Rewrite loop with CTE ("Eliminating Intra-warp Load Imbalance in Irregular Nested Patterns via Collaborative Task Engagement", III-B): the warp expands its
  // threads' ranges into one list of fine tasks and reduces them per owner.
  best = nestor::cte::for_each_index<128, nestor::cte::scanned>(
      offsets[v], offsets[v + 1],
      [=](int e) { return offsets[adj[e] + 1] - offsets[adj[e]]; },
      nestor::op::max{}, best);
  best_out[v] = best;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 20000)), avg = int(args.get("avg", 12));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr g = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 9)));
  int *off = loops::to_device(g.rowptr), *adj = loops::to_device(g.col);
  int *out = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 12.0 * g.col.size() + 12.0 * n, [&] { max_neighbour_degree<<<(n + 127) / 128, 128>>>(off, adj, out, n); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
