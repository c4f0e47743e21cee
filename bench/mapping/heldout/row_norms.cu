// Held-out case (bench/mapping/heldout.tsv): a reduction per row (sum of
// squares of each row of a row-major matrix, as a normalisation pass before a
// softmax or a k-means distance would do it), one thread per row.
// Held-out: no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

__global__ void row_norms(const float *data, float *norms, int n, int dim) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n) {
    float ss = 0.0f;
    for (int d = 0; d < dim; ++d) {
      float v = data[(size_t)p * dim + d];
      ss += v * v;
    }
    norms[p] = ss;
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 65536)), dim = int(args.get("dim", 64));
  float *data = loops::to_device(loops::random_floats(size_t(n) * dim, 51));
  float *norms = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * (double(n) * dim + n), [&] { row_norms<<<(n + 127) / 128, 128>>>(data, norms, n, dim); });
  loops::ResultFile res(args);
  res.add(loops::from_device(norms, size_t(n)));
  return 0;
}
