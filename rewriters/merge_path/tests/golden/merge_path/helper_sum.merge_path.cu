// Neighbour sum through user __device__ helpers: for each vertex, the sum of
// a hashed value of each neighbour, scaled by a weight the helper loads. The
// loop body only calls pure helpers (no stores, no atomics), so the analysis
// treats it as a + reduction and the load-balancing templates, CTE and
// sub-warp apply (StatementEffects looks into the helpers' bodies).
#include "loops_harness.cuh"
#include <nestor/merge_path.cuh>

__device__ unsigned hashed(int u) { return (unsigned(u) * 2654435761u) % 1000u + 1u; }
__device__ unsigned weighted(const int *weight, int u) { return hashed(u) * unsigned(weight[u] % 7 + 1); }

// merge-path (Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16):
// the iterations of the loop at line 15 for rows 0 .. vertices - 1, split evenly (rows + iterations) over the
// blocks of a persistent grid; each row's value goes to 'helper_sum', which combines it in a fixed order.
__global__ void __launch_bounds__(nestor::mp::kBlock, nestor::mp::kMinBlocks) helper_sum_nestor_merge(const int *offsets, const int *adj, const int *weight, unsigned *sums, int vertices, nestor::mp::state nestor_mp) {
  nestor::mp::merge_rows<unsigned int>(nestor_mp, offsets, vertices, [=](int e) { return weighted(weight, adj[e]); }, nestor::op::add{},
      // fused: 'helper_sum' for row nestor_q, its loop's value nestor_v (run here when its grid has
      // one thread per row; the rows that span blocks are finished last, in block order)
      [&](long long nestor_q, unsigned int nestor_v) {
        int v = static_cast<int>(nestor_q);
        if (v >= vertices) return;
        unsigned sum = 0; // wraps: unsigned + is associative, so any order gives the same bits
        sum = nestor::op::add{}(sum, nestor_v);
        sums[v] = sum;
      });
}

__global__ void helper_sum(const int *offsets, const int *adj, const int *weight, unsigned *sums, int vertices, nestor::mp::state nestor_mp = {}) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  unsigned sum = 0; // wraps: unsigned + is associative, so any order gives the same bits
  // merge-path: the row's value from helper_sum_nestor_merge, which split the iterations evenly
  // over its blocks (reassociated); the loop as written runs without the merge pass.
  if (nestor_mp.ready())
    sum = nestor::op::add{}(sum, nestor_mp.row_result<unsigned int>(offsets[v], offsets[v + 1], v, nestor::op::add{}, offsets[0]));
  else
    for (int e = offsets[v]; e < offsets[v + 1]; ++e) sum += weighted(weight, adj[e]);
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
               [&] { nestor::mp::launch<unsigned int>(n, dim3((n + 127) / 128), dim3(128), helper_sum_nestor_merge, [&](nestor::mp::state nestor_s, int nestor_grid) {
                 helper_sum_nestor_merge<<<nestor_grid, nestor::mp::kBlock>>>(off, adj, weight, out, n, nestor_s);
               }, [&](nestor::mp::state nestor_s, dim3 nestor_g, dim3 nestor_b) {
                 helper_sum<<<nestor_g, nestor_b>>>(off, adj, weight, out, n, nestor_s);
               }); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
