// Held-out case (bench/mapping/heldout11.tsv): the authority update of
// Kleinberg's HITS (the pull step of a GPU link-analysis code, one page per
// thread): row v of a CSR matrix lists the pages linking to v, and the
// thread sums their hub scores in double, each scaled by the link's anchor
// weight (an 8-bit count of the anchor's occurrences), then stores the
// authority in float. A double sum over a row with a gathered float, a byte
// per entry and mixed element types; power-law and "longrows" rows. Written
// for issue 22's eleventh held-out set, before any tuning on it; no weight of
// the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef HITS_BLOCK
#define HITS_BLOCK 128
#endif

struct PageLinks {
  const int *in_start;
  const int *src;
  const unsigned char *anchors;
};

__global__ void hits_authority_pull(PageLinks links, const float *__restrict__ hub, float *__restrict__ auth,
                                    int npages) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= npages) return;
  double a = 0.0;
  for (int e = links.in_start[v]; e < links.in_start[v + 1]; ++e) {
    int u = links.src[e];
    a += double(hub[u]) * double(links.anchors[e]);
  }
  auth[v] = float(a);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 196608)), avg = int(args.get("avg", 5));
  if (n < 1) {
    std::fprintf(stderr, "hits_authority: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1121)));
  const size_t nnz = a.col.size();
  // Anchor counts 1 to 4 (mostly 1), hub scores in [0, 1).
  std::vector<unsigned char> anchors(nnz);
  for (size_t e = 0; e < nnz; ++e) {
    const float x = a.val[e];
    anchors[e] = (unsigned char)(x > 0.8f ? 4 : x > 0.6f ? 2 : 1);
  }
  std::vector<float> hub = loops::random_floats(size_t(n), 1122u, 0.0f, 1.0f);
  PageLinks links{loops::to_device(a.rowptr), loops::to_device(a.col), loops::to_device(anchors)};
  float *dhub = loops::to_device(hub), *auth = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * nnz + 1.0 * nnz + 4.0 * nnz + 12.0 * n, [&] {
    hits_authority_pull<<<(n + HITS_BLOCK - 1) / HITS_BLOCK, HITS_BLOCK>>>(links, dhub, auth, n);
  });
  std::vector<float> got = loops::from_device(auth, size_t(n));
  size_t bad = 0;
  for (int v = 0; v < n; ++v) {
    double want = 0;
    for (int e = a.rowptr[size_t(v)]; e < a.rowptr[size_t(v) + 1]; ++e)
      want += double(hub[size_t(a.col[size_t(e)])]) * anchors[size_t(e)];
    if (std::fabs(got[size_t(v)] - want) > 1e-4 * std::max(1.0, want)) ++bad;
  }
  std::printf("hits_authority: %d pages, %zu links%s\n", n, nnz, bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
