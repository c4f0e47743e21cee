// Held-out case (bench/mapping/heldout5.tsv): one pull round of label-
// propagation connected components (the hooking step of the Shiloach-Vishkin
// style CC codes in LonestarGPU and Gunrock, written vertex-centric): one
// thread per vertex takes the minimum of its own label and its out-
// neighbours' labels over its CSR range. An integer min reduction with a
// gather, on power-law and regular rows. Written for issue 22's fifth held-out
// set, before any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef MINL_BLOCK
#define MINL_BLOCK 256
#endif

__global__ void min_neighbour_label(int n, const int *rowptr, const int *col, const int *label, int *next) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    int m = label[v];
    for (int e = rowptr[v]; e < rowptr[v + 1]; ++e) m = min(m, label[col[e]]);
    next[v] = m;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 8));
  if (n < 1) {
    std::fprintf(stderr, "min_label: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 521)));
  // Labels: a scrambled permutation of 0..n-1 (as after a random relabelling).
  std::vector<int> label(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) label[size_t(v)] = v;
  std::mt19937 g(522);
  std::shuffle(label.begin(), label.end(), g);
  int *rowptr = loops::to_device(a.rowptr), *col = loops::to_device(a.col), *dlabel = loops::to_device(label);
  int *next = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 8.0 * a.col.size() + 12.0 * n, [&] {
    min_neighbour_label<<<(n + MINL_BLOCK - 1) / MINL_BLOCK, MINL_BLOCK>>>(n, rowptr, col, dlabel, next);
  });
  std::vector<int> got = loops::from_device(next, size_t(n));
  size_t bad = 0;
  for (int v = 0; v < n; ++v) {
    int m = label[size_t(v)];
    for (int e = a.rowptr[size_t(v)]; e < a.rowptr[size_t(v) + 1]; ++e) m = std::min(m, label[size_t(a.col[size_t(e)])]);
    if (got[size_t(v)] != m) ++bad;
  }
  std::printf("min_label: %d rows, %zu entries%s\n", n, a.col.size(), bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
