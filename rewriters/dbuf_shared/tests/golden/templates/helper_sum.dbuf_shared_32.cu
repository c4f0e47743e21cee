// Neighbour sum through user __device__ helpers: for each vertex, the sum of
// a hashed value of each neighbour, scaled by a weight the helper loads. The
// loop body only calls pure helpers (no stores, no atomics), so the analysis
// treats it as a + reduction and the load-balancing templates, CTE and
// sub-warp apply (StatementEffects looks into the helpers' bodies).
#include "loops_harness.cuh"
#include <nestor/templates.cuh>

__device__ unsigned hashed(int u) { return (unsigned(u) * 2654435761u) % 1000u + 1u; }
__device__ unsigned weighted(const int *weight, int u) { return hashed(u) * unsigned(weight[u] % 7 + 1); }

// The body of 'helper_sum' for the dbuf-shared template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void helper_sum_nestor_body(const int *offsets, const int *adj, const int *weight, unsigned *sums, int vertices, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  unsigned sum = 0; // wraps: unsigned + is associative, so any order gives the same bits
  // dbuf-shared ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
  // trip count is 32 or more, or hands back its block-computed reduction.
  if (nestor_phase.defer(offsets[v], offsets[v + 1])) return;
  if (nestor_phase.has_result()) sum = nestor::op::add{}(sum, nestor_phase.template result<unsigned int>());
  else
    for (int e = offsets[v]; e < offsets[v + 1]; ++e) sum += weighted(weight, adj[e]);
  sums[v] = sum;
}

__global__ void helper_sum(const int *offsets, const int *adj, const int *weight, unsigned *sums, int vertices) {
  // dbuf-shared, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(c)): rows whose loop
  // has 32 or more iterations are delayed to a per-block buffer in shared memory (128 slots, then a
  // global overflow), reduced by the whole block after the thread-mapped pass, and finished by their owner.
  nestor::tmpl::dbuf_shared<int, unsigned int, 128>(32, [=](int e) { return weighted(weight, adj[e]); }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    helper_sum_nestor_body(offsets, adj, weight, sums, vertices, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
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
