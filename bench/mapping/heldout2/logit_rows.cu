// Held-out case (bench/mapping/heldout2.tsv): logistic-regression scoring,
// one thread per sample, a dense dot product of the sample's features (row
// major) with the weight vector, then a sigmoid (the predict step of GPU
// machine-learning code). Rows from a few features (where the loop is too
// short for any rewrite to pay) to thousands. Written for issue 22's second
// held-out set; no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#ifndef LOGIT_BLOCK
#define LOGIT_BLOCK 256
#endif

__global__ void logit_rows(const float *features, const float *weights, float bias, float *prob, int samples,
                           int dims) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < samples) {
    float z = bias;
    for (int j = 0; j < dims; ++j)
      z += features[(size_t)s * dims + j] * weights[j];
    prob[s] = 1.0f / (1.0f + __expf(-z));
  }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int samples = int(args.get("samples", 65536)), dims = int(args.get("dims", 64));
  float *features = loops::to_device(loops::random_floats(size_t(samples) * dims, 61));
  float *weights = loops::to_device(loops::random_floats(size_t(dims), 62, -0.5f, 0.5f));
  float *prob = loops::device_zeros<float>(size_t(samples));
  loops::timed(args, 4.0 * (double(samples) * dims + dims + samples), [&] {
    logit_rows<<<(samples + LOGIT_BLOCK - 1) / LOGIT_BLOCK, LOGIT_BLOCK>>>(features, weights, 0.25f, prob, samples,
                                                                           dims);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(prob, size_t(samples)));
  return 0;
}
