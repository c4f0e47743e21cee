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
#include <nestor/np.cuh>

__global__ void diag(unsigned rows, const unsigned *row_start, const unsigned *col, const float *val, float *d) {
  // CUDA-NP: 4 slaves, inter-warp: block (128, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<128, 4>;
  const dim3 nestor_blockDim(128, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  unsigned row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  { // was: if (row < rows): inter-warp NP predicates the branch (every thread reaches the group barriers)
  const bool nestor_if_0 = bool(row < rows);
  {
    float sum = 0.0f;
    // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:sum))
    {
      const float nestor_sum_in = sum;
      sum = nestor::op::add::identity<float>(); // this thread's partial
    for (unsigned j = (nestor_if_0 ? (row_start[row]) : (unsigned int)0) + nestor_np_group::slave_id(); nestor_if_0 && (j < row_start[row + 1]); j += nestor_np_group::slave_size) // peer-site: row_loop
      sum += col[j] == row ? val[j] : 0.0f;
      sum = nestor::op::add{}(nestor_sum_in, nestor_np_group::reduce<nestor::op::add>(sum)); // reduction(+:sum) (3.2)
    }
    if ((nestor_if_0 && nestor_np_group::is_master())) { d[row] = sum; }
  }
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
      [&] { diag<<<(n + 127) / 128, dim3(128, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 128 */>>>(n, d_offsets, d_col, d_val, d_diag); });
  const std::vector<float> d = peer::from_device(d_diag, n);
  std::vector<float> expect(n, 0.f);
  for (unsigned v = 0; v < n; ++v)
    for (unsigned j = m.offsets[v]; j < m.offsets[v + 1]; ++j)
      if (m.targets[j] == v) expect[v] += val[j];
  if (!peer::matches("cte_diag", d, expect)) return 1;
  std::vector<unsigned long long> result(d.begin(), d.end());  // exact integers
  return peer::finish("cte_diag", opt, m, ms, result);
}
