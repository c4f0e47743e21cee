// Held-out case (bench/mapping/heldout13.tsv): the weighted-mean pooling of an
// embedding bag (the "wide" linear part of a recommender's sparse features,
// as EmbeddingBag with per-sample weights computes it, one bag per thread):
// row b of a CSR matrix lists bag b's feature ids, each with a float
// per-sample weight stored in row order, and the thread sums weight x table
// entry over the row, the table held in HALF precision (__half, converted to
// float per entry), then divides by the bag's length (0 for an empty bag). A
// float sum over a row of gathered 16-bit __half values times a contiguous
// float; power-law and regular rows. Written for issue 22's thirteenth
// held-out set, before any tuning on it; no weight of the mapping model was
// tuned on it.
#include <cuda_fp16.h>

#include "loops_harness.cuh"

#ifndef EB_BLOCK
#define EB_BLOCK 128
#endif

__global__ void embedding_bag_mean(const int *__restrict__ offsets, const int *__restrict__ ids,
                                   const float *__restrict__ psw, const __half *__restrict__ table,
                                   float *__restrict__ pooled, int nbags) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nbags) return;
  const int lo = offsets[b], hi = offsets[b + 1];
  float acc = 0.0f;
  for (int k = lo; k < hi; ++k) acc += psw[k] * __half2float(table[ids[k]]);
  pooled[b] = hi > lo ? acc / float(hi - lo) : 0.0f;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "embed_bag: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1321)));
  const size_t nnz = a.col.size();
  // Table entries in [-1, 1) rounded to half; per-sample weights in [0, 1)
  // (the harness's own values, a.val, rescaled).
  std::vector<float> tf = loops::random_floats(size_t(n), 1322u, -1.0f, 1.0f);
  std::vector<__half> table(tf.size());
  for (size_t i = 0; i < tf.size(); ++i) table[i] = __float2half(tf[i]);
  std::vector<float> psw(a.val.size());
  for (size_t k = 0; k < psw.size(); ++k) psw[k] = 0.5f * (a.val[k] + 1.0f);
  int *doff = loops::to_device(a.rowptr), *dids = loops::to_device(a.col);
  float *dpsw = loops::to_device(psw);
  __half *dtable = loops::to_device(table);
  float *pooled = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 10.0 * nnz + 8.0 * n, [&] {
    embedding_bag_mean<<<(n + EB_BLOCK - 1) / EB_BLOCK, EB_BLOCK>>>(doff, dids, dpsw, dtable, pooled, n);
  });
  std::vector<float> got = loops::from_device(pooled, size_t(n));
  // Float sums of mixed-sign terms in any order stay within 1e-4 (absolute,
  // the means being at most 1) of the double reference; every 3rd bag.
  size_t bad = 0;
  for (int b = 0; b < n; b += 3) {
    const int lo = a.rowptr[size_t(b)], hi = a.rowptr[size_t(b) + 1];
    double want = 0;
    for (int k = lo; k < hi; ++k) want += double(psw[size_t(k)]) * double(__half2float(table[size_t(a.col[size_t(k)])]));
    want = hi > lo ? want / (hi - lo) : 0.0;
    if (std::fabs(got[size_t(b)] - want) > 1e-4) ++bad;
  }
  std::printf("embed_bag: %d bags, %zu ids%s\n", n, nnz, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
