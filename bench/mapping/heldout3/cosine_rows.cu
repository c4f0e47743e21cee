// Held-out case (bench/mapping/heldout3.tsv): cosine similarity of every row
// of an embedding table with one query vector (the scoring pass of a
// nearest-neighbour search): one thread per row walks the row once, keeping
// the dot product with the query and the row's squared norm in two
// accumulators. Rows of a few elements (where the loop is too short for any
// rewrite to pay) to thousands. Written for issue 22's third held-out set,
// before any tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef COS_BLOCK
#define COS_BLOCK 256
#endif

__global__ void cosine_rows(const float *table, const float *query, float query_norm, float *score, int rows,
                            int dims) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float dot = 0.0f, sq = 0.0f;
    for (int d = 0; d < dims; ++d) {
      float a = table[(size_t)r * dims + d];
      dot += a * query[d];
      sq += a * a;
    }
    score[r] = dot / (sqrtf(sq) * query_norm + 1e-20f);
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int rows = int(args.get("rows", 262144)), dims = int(args.get("dims", 64));
  std::vector<float> table = loops::random_floats(size_t(rows) * dims, 301, 0.f, 1.f);
  std::vector<float> query = loops::random_floats(size_t(dims), 302, 0.f, 1.f);
  double qn = 0;
  for (float q : query) qn += double(q) * q;
  const float query_norm = float(std::sqrt(qn));
  float *dtable = loops::to_device(table), *dquery = loops::to_device(query);
  float *score = loops::device_zeros<float>(size_t(rows));
  loops::timed(args, 4.0 * (double(rows) * dims + dims + rows), [&] {
    cosine_rows<<<(rows + COS_BLOCK - 1) / COS_BLOCK, COS_BLOCK>>>(dtable, dquery, query_norm, score, rows, dims);
  });
  std::vector<float> got = loops::from_device(score, size_t(rows));
  // The serial reference (in double): every entry is non-negative, so the
  // scores lie in [0, 1] and a relative error of 1e-4 is far above rounding.
  size_t bad = 0;
  for (int r = 0; r < rows; ++r) {
    double dot = 0, sq = 0;
    for (int d = 0; d < dims; ++d) {
      double a = table[size_t(r) * dims + d];
      dot += a * query[size_t(d)];
      sq += a * a;
    }
    double want = dot / (std::sqrt(sq) * query_norm + 1e-20);
    if (std::fabs(got[size_t(r)] - want) > 1e-4 * std::fabs(want) + 1e-6) ++bad;
  }
  std::printf("cosine_rows: %d rows x %d%s\n", rows, dims, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
