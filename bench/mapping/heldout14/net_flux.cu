// Held-out case (bench/mapping/heldout14.tsv): the divergence of a flow on a
// network (the conservation check of a min-cost-flow or a pipe-network
// solver, one vertex per thread): row i of a CSR matrix lists vertex i's
// incident edges as 8-byte Edge {other end, flow} array-of-structs records,
// each edge's flow oriented from its lower to its higher end, and the thread
// sums +flow for edges to higher vertices and -flow for edges to lower ones
// (net outflow). A float sum of a signed select over a row of contiguous
// array-of-structs records; power-law rows. Written for issue 22's fourteenth
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it.
#include "loops_harness.cuh"

#ifndef NF_BLOCK
#define NF_BLOCK 128
#endif

struct Edge {
  int other;
  float flow;
};

__global__ void net_outflow(const int *__restrict__ row, const Edge *__restrict__ edge, float *__restrict__ div, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float d = 0.0f;
  for (int k = row[i]; k < row[i + 1]; ++k) d += edge[k].other > i ? edge[k].flow : -edge[k].flow;
  div[i] = d;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "net_flux: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1461)));
  const size_t nnz = a.col.size();
  // Flows 0 to 10 in steps of 1/16, from the generated values: every partial
  // sum (below 2^20 here) is exact in float, so any order gives the same sum.
  std::vector<Edge> edge(nnz);
  for (size_t k = 0; k < nnz; ++k) edge[k] = Edge{a.col[k], std::floor((a.val[k] + 1.0f) * 80.0f) / 16.0f};
  int *drow = loops::to_device(a.rowptr);
  Edge *dedge = loops::to_device(edge);
  float *ddiv = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 8.0 * nnz + 8.0 * n, [&] {
    net_outflow<<<(n + NF_BLOCK - 1) / NF_BLOCK, NF_BLOCK>>>(drow, dedge, ddiv, n);
  });
  std::vector<float> got = loops::from_device(ddiv, size_t(n));
  // Exact sums (see above); compared with 1e-6 of the sum of |terms| anyway.
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    double d = 0, mag = 0;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k) {
      const Edge &e = edge[size_t(k)];
      d += e.other > i ? e.flow : -e.flow;
      mag += e.flow;
    }
    if (std::fabs(got[size_t(i)] - d) > 1e-6 * std::max(1.0, mag)) ++bad;
  }
  std::printf("net_flux: %d vertices, %zu edge ends%s\n", n, nnz, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
