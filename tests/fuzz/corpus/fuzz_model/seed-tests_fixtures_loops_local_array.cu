// A kernel shaped like cuda-np.md Figure 5 (ellipsematching): a thread-local
// array filled by one parallel loop and reduced by two more; the array is
// indexed only by the loop iterator, so CUDA-NP partitions it over the slaves.
#include "loops_harness.cuh"

#define NPOINTS 150

__global__ void ellipse(const float *grad_x, const float *weights, float *gicov, int count, float threshold) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float Grad[NPOINTS];
  float sum = 0.0f, var = 0.0f, ep = 0.0f;
#pragma np parallel for
  for (int n = 0; n < NPOINTS; n++)
    Grad[n] = grad_x[(long long)i * NPOINTS + n] * weights[n];
#pragma np parallel for reduction(+:sum)
  for (int n = 0; n < NPOINTS; n++) sum += Grad[n];
  float ave = sum / ((float)NPOINTS);
#pragma np parallel for reduction(+:var,ep)
  for (int n = 0; n < NPOINTS; n++) {
    float d = Grad[n] - ave;
    var += d * d;
    ep += d;
  }
  if (((ave * ave) / var) > threshold)
    gicov[i] = ave / sqrtf(var) + ep;
  else
    gicov[i] = -1.0f;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int count = int(args.get("n", 4000));
  float *g = loops::to_device(loops::random_floats(size_t(count) * NPOINTS, 4, 0.f, 1.f));
  float *w = loops::to_device(loops::random_floats(NPOINTS, 5, 0.5f, 1.5f));
  float *out = loops::device_zeros<float>(size_t(count));
  loops::timed(args, 4.0 * (double(count) * NPOINTS + count), [&] { ellipse<<<(count + 127) / 128, 128>>>(g, w, out, count, 2.0f); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(count)));
  return 0;
}
