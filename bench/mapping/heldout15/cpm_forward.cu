// Held-out case (bench/mapping/heldout15.tsv): one forward pass of the
// critical-path method over a project network (the earliest-start
// relaxation a CPM or PERT scheduler, or a static timing analyser on a gate
// netlist, repeats level by level, one activity per thread): row i of a CSR
// matrix lists activity i's predecessors, a contiguous float array gives each
// precedence link's lag, and the thread takes the MAX over its predecessors
// of the predecessor's finish time (gathered) plus the link's lag, from 0.
// A FLOAT MAX of a gathered value plus a contiguous one over a row;
// power-law and regular rows. Written for issue 22's fifteenth held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef CPM_BLOCK
#define CPM_BLOCK 128
#endif

__global__ void cpm_earliest_start(const int *__restrict__ row, const int *__restrict__ pred,
                                   const float *__restrict__ lag, const float *__restrict__ finish,
                                   float *__restrict__ start, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float es = 0.0f;
  for (int k = row[i]; k < row[i + 1]; ++k) es = fmaxf(es, finish[pred[k]] + lag[k]);
  start[i] = es;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "cpm_forward: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1501)));
  const size_t nnz = a.col.size();
  // Lags -4 to 4 days in quarter days from the generated values (the
  // negative ones are lead times); finish times in [0, 1000) days.
  std::vector<float> lag(nnz);
  for (size_t k = 0; k < nnz; ++k) lag[k] = std::floor(a.val[k] * 16.0f) / 4.0f;
  std::vector<float> finish = loops::random_floats(size_t(n), 1502u, 0.0f, 1000.0f);
  int *drow = loops::to_device(a.rowptr), *dpred = loops::to_device(a.col);
  float *dlag = loops::to_device(lag), *dfinish = loops::to_device(finish);
  float *dstart = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 12.0 * nnz + 8.0 * n, [&] {
    cpm_earliest_start<<<(n + CPM_BLOCK - 1) / CPM_BLOCK, CPM_BLOCK>>>(drow, dpred, dlag, dfinish, dstart, n);
  });
  std::vector<float> got = loops::from_device(dstart, size_t(n));
  // A max of the same float sums: exact in any order.
  size_t bad = 0, sources = 0;
  for (int i = 0; i < n; ++i) {
    float es = 0.0f;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k)
      es = std::max(es, finish[size_t(a.col[size_t(k)])] + lag[size_t(k)]);
    sources += a.rowptr[size_t(i)] == a.rowptr[size_t(i) + 1];
    if (got[size_t(i)] != es) ++bad;
  }
  std::printf("cpm_forward: %d activities, %zu links, %zu without predecessors%s\n", n, nnz, sources,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
