// Held-out case (bench/mapping/heldout.tsv): three small loops over a
// thread-local array (a per-point polynomial fit, in the style of Rodinia's
// per-thread feature loops): the loops are short and each thread's data sits
// in registers, so the original is expected to be hard to beat.
// Held-out: no weight of the mapping model was tuned on it.
#include "loops_harness.cuh"

#define TERMS 8

__global__ void poly_local(const float *pts, const float *coef, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float pw[TERMS];
  float xv = pts[i];
  for (int t = 0; t < TERMS; t++) pw[t] = coef[t] * (1.0f + xv * (float)t);
  float total = 0.0f;
  for (int t = 0; t < TERMS; t++) total += pw[t];
  float spread = 0.0f;
  for (int t = 0; t < TERMS; t++) spread += fabsf(pw[t] - total / TERMS);
  out[i] = total + 0.5f * spread;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 1 << 20));
  float *pts = loops::to_device(loops::random_floats(size_t(n), 41));
  float *coef = loops::to_device(loops::random_floats(TERMS, 42));
  float *out = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 8.0 * n, [&] { poly_local<<<(n + 255) / 256, 256>>>(pts, coef, out, n); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
