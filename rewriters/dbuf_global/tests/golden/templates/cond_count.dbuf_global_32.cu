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
#include <nestor/templates.cuh>

__global__ void same_label_count(const int *row, const int *adj, const int *label, int *count, int vertices) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  int cnt = 0;
  for (int e = row[v]; e < row[v + 1]; ++e)
    if (label[adj[e]] == label[v]) ++cnt;
  count[v] = cnt;
}

// The body of 'heavy_neighbours' for the dbuf-global template: the thread identity is a parameter, so a
// delayed row can be finished by its owner or by a block-mapped pass (nestor/templates.cuh).
template <class NestorPhase>
__device__ __forceinline__ void heavy_neighbours_nestor_body(const int *row, const int *adj, int heavy, int *count, int vertices, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim, NestorPhase nestor_phase) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vertices) return;
  int cnt = 0;
  // dbuf-global ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): the phase delays this loop when its
  // trip count is 32 or more, or hands back its block-computed reduction.
  if (nestor_phase.defer(row[v], row[v + 1])) return;
  if (nestor_phase.has_result()) cnt = nestor::op::add{}(cnt, nestor_phase.template result<int>());
  else
    for (int e = row[v]; e < row[v + 1]; ++e)
      if (row[adj[e] + 1] - row[adj[e]] > heavy) cnt++;
  count[v] = cnt;
}

__global__ void heavy_neighbours(const int *row, const int *adj, int heavy, int *count, int vertices, nestor::tmpl::launch_state nestor_ls = {}) {
  // dbuf-global, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(c)): the thread-mapped
  // pass delays rows with 32 or more iterations to a global buffer; a second, block-mapped launch
  // reduces each and finishes its row (nestor::tmpl::launch_templates at the launch).
  nestor::tmpl::dispatch<int>(nestor_ls, [=](int e) { return ((row[adj[e] + 1] - row[adj[e]] > heavy) ? (1) : (int)0); }, nestor::op::add{},
  [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd, auto nestor_phase) {
    heavy_neighbours_nestor_body(row, adj, heavy, count, vertices, nestor_t, nestor_b, nestor_bd, nestor_gd, nestor_phase);
  });
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
    nestor::tmpl::launch_templates(false, blocks, 128, 0, 32, [&](dim3 nestor_g, dim3 nestor_b, size_t nestor_sh, const nestor::tmpl::launch_state &nestor_ls) {
      heavy_neighbours<<<nestor_g, nestor_b, nestor_sh>>>(off, adj, heavy, heavies, n, nestor_ls);
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
