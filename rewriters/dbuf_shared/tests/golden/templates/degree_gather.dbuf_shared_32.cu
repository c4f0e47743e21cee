// Degree gather over a CSR graph: for each vertex, the largest degree among
// its neighbours (a max reduction over an irregular, data-dependent range).
#include "loops_harness.cuh"
#include <nestor/templates.cuh>

// The body of 'max_neighbour_degree' for the dbuf-shared template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void max_neighbour_degree_nestor_body(const int *offsets, const int *adj, int *best_out, int vertices, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  int best = 0;
  // dbuf-shared ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
  // trip count is 32 or more, or hands back its block-computed reduction.
  if (nestor_phase.defer(offsets[v], offsets[v + 1])) return;
  if (nestor_phase.has_result()) best = nestor::op::max{}(best, nestor_phase.template result<int>());
  else
    for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
      int d = offsets[adj[e] + 1] - offsets[adj[e]];
      best = max(best, d);
    }
  best_out[v] = best;
}

__global__ void max_neighbour_degree(const int *offsets, const int *adj, int *best_out, int vertices) {
  // dbuf-shared, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(c)): rows whose loop
  // has 32 or more iterations are delayed to a per-block buffer in shared memory (128 slots, then a
  // global overflow), reduced by the whole block after the thread-mapped pass, and finished by their owner.
  nestor::tmpl::dbuf_shared<int, int, 128>(32, [=](int e) { return offsets[adj[e] + 1] - offsets[adj[e]]; }, nestor::op::max{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    max_neighbour_degree_nestor_body(offsets, adj, best_out, vertices, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
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
