// Held-out case (bench/mapping/heldout2.tsv): one pull-style PageRank step
// (the vertex-centric form of LonestarGPU's and Gunrock's pull PageRank):
// each vertex sums its in-neighbours' rank divided by their out-degree over
// its CSR range, then applies the damping. An irregular reduction whose
// trip count is the in-degree, on power-law and near-regular graphs.
// Held-out: no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef PR_BLOCK
#define PR_BLOCK 128
#endif

__global__ void pr_pull(int nv, const int *in_start, const int *in_src, const float *rank, const float *inv_outdeg,
                        float *next, float damping) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nv) {
    int begin = in_start[v];
    int end = in_start[v + 1];
    float acc = 0.0f;
    for (int e = begin; e < end; ++e)
      acc += rank[in_src[e]] * inv_outdeg[in_src[e]];
    next[v] = (1.0f - damping) / nv + damping * acc;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int nv = int(args.get("vertices", 262144)), avg = int(args.get("avg", 16));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  // The in-edge lists: row v of the CSR holds v's in-neighbours.
  loops::Csr in = loops::make_csr(nv, nv, avg, powerlaw, unsigned(args.get("seed", 81)));
  std::vector<int> outdeg(size_t(nv), 0);
  for (int u : in.col) ++outdeg[size_t(u)];
  std::vector<float> inv(static_cast<size_t>(nv)), rank(static_cast<size_t>(nv));
  for (int u = 0; u < nv; ++u) inv[size_t(u)] = outdeg[size_t(u)] ? 1.0f / float(outdeg[size_t(u)]) : 0.0f;
  std::vector<float> r0 = loops::random_floats(size_t(nv), 82, 0.5f, 1.5f);
  for (int u = 0; u < nv; ++u) rank[size_t(u)] = r0[size_t(u)] / float(nv);
  int *start = loops::to_device(in.rowptr), *src = loops::to_device(in.col);
  float *drank = loops::to_device(rank), *dinv = loops::to_device(inv);
  float *next = loops::device_zeros<float>(size_t(nv));
  loops::timed(args, 12.0 * in.col.size() + 12.0 * nv, [&] {
    pr_pull<<<(nv + PR_BLOCK - 1) / PR_BLOCK, PR_BLOCK>>>(nv, start, src, drank, dinv, next, 0.85f);
  });
  // Scaled by the vertex count so the tolerance compares values near 1.
  std::vector<float> out = loops::from_device(next, size_t(nv));
  for (float &x : out) x *= float(nv);
  loops::ResultFile res(args);
  res.add(out);
  return 0;
}
