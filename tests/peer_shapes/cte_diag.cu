// peer-shape: collaborative-task-engagement (CTE) DIAG, diagonal extraction
//
// Extraction of the diagonal of a CSR matrix, one of the CTE paper's two
// sparse-matrix applications (Figure 6: SpMV and DIAG), in its 1D
// decomposition (the baseline of its Figure 1(a)): one thread per row, a loop
// over the row's non-zeros (the fine-grained tasks) whose map step keeps the
// value in the diagonal column and whose reduction adds them. Written here,
// in that style. The matrix is a power-law or near-regular graph
// (examples/graph/graph.h) with one diagonal entry placed in the middle of
// every row; values are small integers, so every float sum is exact and
// every variant agrees bit for bit. The program checks the diagonal against
// a serial scan of the rows.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I examples/graph -I tests/peer_shapes cte_diag.cu
#include "peer_shapes.h"

__global__ void diag(unsigned rows, const unsigned *row_start, const unsigned *col, const float *val, float *d) {
  unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (unsigned j = row_start[row]; j < row_start[row + 1]; ++j) // peer-site: row_loop
      sum += col[j] == row ? val[j] : 0.0f;
    d[row] = sum;
  }
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "cte_diag: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;
  // The matrix: row v holds v's out-edges (value: the edge weight, so a
  // self-loop adds to the diagonal too) and the entry (v, v) = v % 97 + 1
  // in the middle of the row.
  graph::csr m;
  m.vertices = n;
  m.offsets.assign(n + 1, 0);
  std::vector<float> val;
  for (unsigned v = 0; v < n; ++v) {
    const unsigned mid = g.offsets[v] + g.degree(v) / 2;
    for (unsigned e = g.offsets[v]; e <= g.offsets[v + 1]; ++e) {
      if (e == mid) {
        m.targets.push_back(v);
        val.push_back(float(v % 97 + 1));
      }
      if (e < g.offsets[v + 1]) {
        m.targets.push_back(g.targets[e]);
        val.push_back(float(g.weights[e]));
      }
    }
    m.offsets[v + 1] = unsigned(m.targets.size());
  }
  unsigned *d_offsets = peer::to_device(m.offsets), *d_col = peer::to_device(m.targets);
  float *d_val = peer::to_device(val), *d_diag = peer::to_device(std::vector<float>(n, 0.f));
  const double ms = peer::timed(
      opt.reps, [&] { PEER_CHECK(cudaMemset(d_diag, 0, n * sizeof(float))); },
      [&] { diag<<<(n + 127) / 128, 128>>>(n, d_offsets, d_col, d_val, d_diag); });
  const std::vector<float> d = peer::from_device(d_diag, n);
  std::vector<float> expect(n, 0.f);
  for (unsigned v = 0; v < n; ++v)
    for (unsigned j = m.offsets[v]; j < m.offsets[v + 1]; ++j)
      if (m.targets[j] == v) expect[v] += val[j];
  if (!peer::matches("cte_diag", d, expect)) return 1;
  std::vector<unsigned long long> result(d.begin(), d.end());  // exact integers
  return peer::finish("cte_diag", opt, m, ms, result);
}
