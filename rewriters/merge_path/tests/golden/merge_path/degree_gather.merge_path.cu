// Degree gather over a CSR graph: for each vertex, the largest degree among
// its neighbours (a max reduction over an irregular, data-dependent range).
#include "loops_harness.cuh"
#include <nestor/merge_path.cuh>

// merge-path (Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16):
// the iterations of the loop at line 9 for rows 0 .. vertices - 1, split evenly (rows + iterations) over the
// blocks of a persistent grid; each row's value goes to 'max_neighbour_degree', which combines it in a fixed order.
__global__ void __launch_bounds__(nestor::mp::kBlock, nestor::mp::kMinBlocks) max_neighbour_degree_nestor_merge(const int *offsets, const int *adj, int *best_out, int vertices, nestor::mp::state nestor_mp) {
  nestor::mp::merge_rows<int>(nestor_mp, offsets, vertices, [=](int e) { return offsets[adj[e] + 1] - offsets[adj[e]]; }, nestor::op::max{},
      // fused: 'max_neighbour_degree' for row nestor_q, its loop's value nestor_v (run here when its grid has
      // one thread per row; the rows that span blocks are finished last, in block order)
      [&](long long nestor_q, int nestor_v) {
        int v = static_cast<int>(nestor_q);
        if (v >= vertices) return;
        int best = 0;
        best = nestor::op::max{}(best, nestor_v);
        best_out[v] = best;
      });
}

__global__ void max_neighbour_degree(const int *offsets, const int *adj, int *best_out, int vertices, nestor::mp::state nestor_mp = {}) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  int best = 0;
  // merge-path: the row's value from max_neighbour_degree_nestor_merge, which split the iterations evenly
  // over its blocks (reassociated); the loop as written runs without the merge pass.
  if (nestor_mp.ready())
    best = nestor::op::max{}(best, nestor_mp.row_result<int>(offsets[v], offsets[v + 1], v, nestor::op::max{}, offsets[0]));
  else
    for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
      int d = offsets[adj[e] + 1] - offsets[adj[e]];
      best = max(best, d);
    }
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
  loops::timed(args, 12.0 * g.col.size() + 12.0 * n, [&] { nestor::mp::launch<int>(n, dim3((n + 127) / 128), dim3(128), max_neighbour_degree_nestor_merge, [&](nestor::mp::state nestor_s, int nestor_grid) {
    max_neighbour_degree_nestor_merge<<<nestor_grid, nestor::mp::kBlock>>>(off, adj, out, n, nestor_s);
  }, [&](nestor::mp::state nestor_s, dim3 nestor_g, dim3 nestor_b) {
    max_neighbour_degree<<<nestor_g, nestor_b>>>(off, adj, out, n, nestor_s);
  }); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
