// Held-out case (bench/mapping/heldout10.tsv): the Okapi BM25 score of every
// document of an inverted-index shard for one query (the scoring pass of a
// GPU search engine's exhaustive retrieval, one document per thread): row d
// of a CSR matrix lists the terms of document d with their 16-bit term
// frequencies, a byte mask marks the query's terms, and the thread sums
// idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen)) over the
// document's terms that are in the query. A float sum over a row with a
// gathered byte test, an unsigned short per entry and a gathered float for
// the hits only; power-law, regular and "longrows" rows. Written for issue
// 22's tenth held-out set, before any tuning on it; no weight of the mapping
// model was tuned on it.
#include "loops_harness.cuh"

#ifndef BM25_BLOCK
#define BM25_BLOCK 128
#endif

#define BM25_K1 1.2f
#define BM25_B 0.75f

__global__ void bm25_doc_score(const int *__restrict__ doc_start, const int *__restrict__ term,
                               const unsigned short *__restrict__ tf, const unsigned char *__restrict__ in_query,
                               const float *__restrict__ idf, const float *__restrict__ doc_len, float avg_len,
                               float *__restrict__ score, int ndocs) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d >= ndocs) return;
  const float norm = BM25_K1 * (1.0f - BM25_B + BM25_B * doc_len[d] / avg_len);
  float s = 0.0f;
  for (int e = doc_start[d]; e < doc_start[d + 1]; ++e) {
    const int t = term[e];
    if (in_query[t]) {
      const float f = float(tf[e]);
      s += idf[t] * f * (BM25_K1 + 1.0f) / (f + norm);
    }
  }
  score[d] = s;
}

static unsigned mix32(unsigned h) {
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 5));
  if (n < 1) {
    std::fprintf(stderr, "bm25_score: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  // Documents are rows, the vocabulary has as many terms as there are
  // documents; a term's frequency in a document is 1 to 8 (mostly 1), one
  // term in 8 is in the query, idf in [0.5, 8.5).
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1001)));
  const size_t nnz = a.col.size();
  std::vector<unsigned short> tf(nnz);
  std::vector<unsigned char> in_query(static_cast<size_t>(n));
  std::vector<float> idf(static_cast<size_t>(n)), doc_len(static_cast<size_t>(n), 0.0f);
  for (size_t e = 0; e < nnz; ++e) {
    const unsigned h = mix32(unsigned(e) * 0x9E3779B9u + 1002u);
    tf[e] = (unsigned short)(1u + ((h & 7u) == 0 ? (h >> 3) % 8u : 0u));
  }
  for (int t = 0; t < n; ++t) {
    const unsigned h = mix32(unsigned(t) * 0x85EBCA6Bu + 1003u);
    in_query[size_t(t)] = (h & 7u) == 0 ? 1 : 0;
    idf[size_t(t)] = 0.5f + float(h >> 8) * (8.0f / 16777216.0f);
  }
  double total_len = 0;
  for (int d = 0; d < n; ++d) {
    float l = 0;
    for (int e = a.rowptr[size_t(d)]; e < a.rowptr[size_t(d) + 1]; ++e) l += tf[size_t(e)];
    doc_len[size_t(d)] = l;
    total_len += l;
  }
  const float avg_len = float(std::max(1.0, total_len / n));
  int *start = loops::to_device(a.rowptr), *term = loops::to_device(a.col);
  unsigned short *dtf = loops::to_device(tf);
  unsigned char *dq = loops::to_device(in_query);
  float *didf = loops::to_device(idf), *dlen = loops::to_device(doc_len);
  float *score = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * nnz + 2.0 * nnz + 1.0 * nnz + 12.0 * n, [&] {
    bm25_doc_score<<<(n + BM25_BLOCK - 1) / BM25_BLOCK, BM25_BLOCK>>>(start, term, dtf, dq, didf, dlen, avg_len, score,
                                                                      n);
  });
  std::vector<float> got = loops::from_device(score, size_t(n));
  // Every term is positive: float sums in any order stay within 1e-3
  // (relative) of the double reference.
  size_t bad = 0;
  for (int d = 0; d < n; ++d) {
    const double norm = 1.2 * (1.0 - 0.75 + 0.75 * double(doc_len[size_t(d)]) / avg_len);
    double want = 0;
    for (int e = a.rowptr[size_t(d)]; e < a.rowptr[size_t(d) + 1]; ++e) {
      const size_t t = size_t(a.col[size_t(e)]);
      if (!in_query[t]) continue;
      const double f = tf[size_t(e)];
      want += idf[t] * f * 2.2 / (f + norm);
    }
    if (std::fabs(got[size_t(d)] - want) > 1e-3 * std::max(1.0, std::fabs(want))) ++bad;
  }
  std::printf("bm25_score: %d documents, %zu postings%s\n", n, nnz, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
