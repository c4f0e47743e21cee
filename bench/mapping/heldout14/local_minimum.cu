// Held-out case (bench/mapping/heldout14.tsv): which vertices of a mesh or a
// k-nearest-neighbour graph are local minima of a height field (the seeds of
// a watershed segmentation or of Morse-complex extraction, one vertex per
// thread): row i of a CSR matrix lists vertex i's neighbours, and the thread
// ANDs together `height[i] < height[neighbour]` (ties broken by the lower id)
// into an int flag, `seed &= ...`, over the gathered FLOAT heights. A
// LOGICAL AND over a row of gathered float comparisons; power-law and
// "longrows" rows. Written for issue 22's fourteenth held-out set, before any
// tuning on it; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef LM_BLOCK
#define LM_BLOCK 128
#endif

__global__ void watershed_seeds(const int *__restrict__ row, const int *__restrict__ nbr,
                                const float *__restrict__ height, int *__restrict__ seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float h = height[i];
  int s = 1;
  for (int k = row[i]; k < row[i + 1]; ++k) {
    const int j = nbr[k];
    s &= (h < height[j] || (h == height[j] && i <= j)) ? 1 : 0;
  }
  seed[i] = s;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 229376)), avg = int(args.get("avg", 4));
  if (n < 1) {
    std::fprintf(stderr, "local_minimum: --rows must be at least 1\n");
    return 2;
  }
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr a = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 1431)));
  const size_t nnz = a.col.size();
  // Heights rounded to 1/64 so that ties occur.
  std::vector<float> height = loops::random_floats(size_t(n), 1432u, 0.0f, 64.0f);
  for (float &h : height) h = std::floor(h * 64.0f) / 64.0f;
  int *drow = loops::to_device(a.rowptr), *dnbr = loops::to_device(a.col);
  float *dh = loops::to_device(height);
  int *dseed = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 8.0 * nnz + 12.0 * n, [&] {
    watershed_seeds<<<(n + LM_BLOCK - 1) / LM_BLOCK, LM_BLOCK>>>(drow, dnbr, dh, dseed, n);
  });
  std::vector<int> got = loops::from_device(dseed, size_t(n));
  size_t bad = 0, seeds = 0;
  for (int i = 0; i < n; ++i) {
    const float h = height[size_t(i)];
    int s = 1;
    for (int k = a.rowptr[size_t(i)]; k < a.rowptr[size_t(i) + 1]; ++k) {
      const int j = a.col[size_t(k)];
      if (!(h < height[size_t(j)] || (h == height[size_t(j)] && i <= j))) s = 0;
    }
    seeds += size_t(s);
    if (got[size_t(i)] != s) ++bad;
  }
  std::printf("local_minimum: %d vertices, %zu edges, %zu seeds%s\n", n, nnz, seeds,
              bad ? ", DIFFERS FROM THE SERIAL REFERENCE" : "");
  loops::ResultFile res(args);
  res.add(got);
  return bad ? 1 : 0;
}
