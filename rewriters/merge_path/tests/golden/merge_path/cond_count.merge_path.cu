// Conditional counts over a CSR graph, written the way kernels count: the
// loop body's last statement is `if (c) ++cnt;` (or `if (c) sum += x;`),
// a + reduction of `c ? 1 : 0` (of `c ? x : 0`) over an irregular range.
//   same_label_count: neighbours with the vertex's own label (the condition
//     reads the thread's v: CTE passes it as a task descriptor);
//   heavy_neighbours: neighbours whose degree exceeds `heavy` (reads only
//     the graph and a parameter: the load-balancing templates and
//     merge-path evaluate it on other threads);
//   label_weight: the weight of the edges into vertices of label `target`,
//     with the neighbour in a local first (`int u = adj[e]; if (...) sum += w[e];`).
// The host checks every result against a serial reference.
#include "loops_harness.cuh"
#include <nestor/merge_path.cuh>

__global__ void same_label_count(const int *row, const int *adj, const int *label, int *count, int vertices) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  int cnt = 0;
  for (int e = row[v]; e < row[v + 1]; ++e)
    if (label[adj[e]] == label[v]) ++cnt;
  count[v] = cnt;
}

// merge-path (Merrill and Garland, Merge-based Parallel Sparse Matrix-Vector Multiplication, SC'16):
// the iterations of the loop at line 27 for rows 0 .. vertices - 1, split evenly (rows + iterations) over the
// blocks of a persistent grid; each row's value goes to 'heavy_neighbours', which combines it in a fixed order.
__global__ void __launch_bounds__(nestor::mp::kBlock, nestor::mp::kMinBlocks) heavy_neighbours_nestor_merge(const int *row, const int *adj, int heavy, int *count, int vertices, nestor::mp::state nestor_mp) {
  nestor::mp::merge_rows<int>(nestor_mp, row, vertices, [=](int e) { return ((row[adj[e] + 1] - row[adj[e]] > heavy) ? (1) : (int)0); }, nestor::op::add{},
      // fused: 'heavy_neighbours' for row nestor_q, its loop's value nestor_v (run here when its grid has
      // one thread per row; the rows that span blocks are finished last, in block order)
      [&](long long nestor_q, int nestor_v) {
        int v = static_cast<int>(nestor_q);
        if (v >= vertices) return;
        int cnt = 0;
        cnt = nestor::op::add{}(cnt, nestor_v);
        count[v] = cnt;
      });
}

__global__ void heavy_neighbours(const int *row, const int *adj, int heavy, int *count, int vertices, nestor::mp::state nestor_mp = {}) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  int cnt = 0;
  // merge-path: the row's value from heavy_neighbours_nestor_merge, which split the iterations evenly
  // over its blocks (reassociated); the loop as written runs without the merge pass.
  if (nestor_mp.ready())
    cnt = nestor::op::add{}(cnt, nestor_mp.row_result<int>(row[v], row[v + 1], v, nestor::op::add{}, row[0]));
  else
    for (int e = row[v]; e < row[v + 1]; ++e)
      if (row[adj[e] + 1] - row[adj[e]] > heavy) cnt++;
  count[v] = cnt;
}

__global__ void label_weight(const int *row, const int *adj, const float *w, const int *label, int target, float *sums,
                             int vertices) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  float sum = 0.0f;
  for (int e = row[v]; e < row[v + 1]; ++e) {
    int u = adj[e];
    if (label[u] == target) sum += w[e];
  }
  sums[v] = sum;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 20000)), avg = int(args.get("avg", 12));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr g = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 11)));
  std::vector<int> lab(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) lab[size_t(i)] = int((unsigned(i) * 2654435761u) >> 29); // 8 labels
  const std::vector<float> wt = loops::random_floats(g.col.size(), 5, 0.f, 1.f);
  const int heavy = avg, target = 3;
  int *off = loops::to_device(g.rowptr), *adj = loops::to_device(g.col), *label = loops::to_device(lab);
  float *w = loops::to_device(wt);
  int *same = loops::device_zeros<int>(size_t(n)), *heavies = loops::device_zeros<int>(size_t(n));
  float *sums = loops::device_zeros<float>(size_t(n));
  const int blocks = (n + 127) / 128;
  loops::timed(args, 16.0 * g.col.size() + 12.0 * n, [&] {
    same_label_count<<<blocks, 128>>>(off, adj, label, same, n);
    nestor::mp::launch<int>(n, dim3(blocks), dim3(128), heavy_neighbours_nestor_merge, [&](nestor::mp::state nestor_s, int nestor_grid) {
      heavy_neighbours_nestor_merge<<<nestor_grid, nestor::mp::kBlock>>>(off, adj, heavy, heavies, n, nestor_s);
    }, [&](nestor::mp::state nestor_s, dim3 nestor_g, dim3 nestor_b) {
      heavy_neighbours<<<nestor_g, nestor_b>>>(off, adj, heavy, heavies, n, nestor_s);
    });
    label_weight<<<blocks, 128>>>(off, adj, w, label, target, sums, n);
  });
  const std::vector<int> same_h = loops::from_device(same, size_t(n)), heavy_h = loops::from_device(heavies, size_t(n));
  const std::vector<float> sums_h = loops::from_device(sums, size_t(n));
  // The serial reference.
  for (int v = 0; v < n; ++v) {
    int s = 0, h = 0;
    double ws = 0.0;
    for (int e = g.rowptr[size_t(v)]; e < g.rowptr[size_t(v) + 1]; ++e) {
      const int u = g.col[size_t(e)];
      s += lab[size_t(u)] == lab[size_t(v)];
      h += g.rowptr[size_t(u) + 1] - g.rowptr[size_t(u)] > heavy;
      if (lab[size_t(u)] == target) ws += wt[size_t(e)];
    }
    if (same_h[size_t(v)] != s || heavy_h[size_t(v)] != h || std::fabs(sums_h[size_t(v)] - ws) > 1e-3 * (1.0 + std::fabs(ws))) {
      std::fprintf(stderr, "FAIL: vertex %d: counts %d %d, sum %g; the serial reference gives %d %d, %g\n", v,
                   same_h[size_t(v)], heavy_h[size_t(v)], double(sums_h[size_t(v)]), s, h, ws);
      return 1;
    }
  }
  loops::ResultFile res(args);
  res.add(same_h);
  res.add(heavy_h);
  res.add(sums_h);
  return 0;
}
