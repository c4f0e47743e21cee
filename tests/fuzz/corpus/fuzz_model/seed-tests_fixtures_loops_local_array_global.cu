// Thread-local arrays that CUDA-NP must move to global memory (cuda-np.md
// 3.3): read outside the parallel loops at a data-dependent index (so not
// partitionable over the slaves' registers) and too big for the 384-byte
// shared-memory budget. Two arrays share the pool the host passes in.
#include "loops_harness.cuh"

#define NPOINTS 150
#define NBINS 100

__global__ void ellipse_global(const float *grad_x, const float *weights, const int *pick, float *gicov, int *bins_out,
                               int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float Grad[NPOINTS];
  int bins[NBINS];
  float sum = 0.0f;
#pragma np parallel for
  for (int n = 0; n < NPOINTS; n++)
    Grad[n] = grad_x[(long long)i * NPOINTS + n] * weights[n];
#pragma np parallel for
  for (int b = 0; b < NBINS; b++)
    bins[b] = b * (i % 7) - 3;
#pragma np parallel for reduction(+:sum)
  for (int n = 0; n < NPOINTS; n++) sum += Grad[n];
  const int p = pick[i];
  gicov[i] = sum / NPOINTS + Grad[p % NPOINTS] * 0.5f;
  bins_out[i] = bins[p % NBINS] + bins[(p / 3) % NBINS];
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int count = int(args.get("n", 4000)), reps = int(args.get("launches", 2));
  std::vector<int> hp(static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) hp[size_t(k)] = (k * 7919) % 1000;
  float *g = loops::to_device(loops::random_floats(size_t(count) * NPOINTS, 41, 0.f, 1.f));
  float *w = loops::to_device(loops::random_floats(NPOINTS, 42, 0.5f, 1.5f));
  int *pick = loops::to_device(hp);
  float *out = loops::device_zeros<float>(size_t(count));
  int *bins = loops::device_zeros<int>(size_t(count));
  // Launches of different sizes from one site: the pool grows between them.
  loops::timed(args, 4.0 * (double(count) * NPOINTS * 2 + 3.0 * count), [&] {
    for (int r = 1; r <= reps; ++r) {
      const int c = count * r / reps;
      ellipse_global<<<(c + 127) / 128, 128>>>(g, w, pick, out, bins, c);
    }
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(count)));
  res.add(loops::from_device(bins, size_t(count)));
  return 0;
}
