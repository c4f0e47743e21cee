// A parallel loop inside a sequential time-step loop (issue 4): the outer
// loop runs in every thread of a group; the master updates state between the
// steps (from memory, so the next step's parallel loop needs it broadcast)
// and writes one output per step.
#include "loops_harness.cuh"

__global__ void steps(const float *a, float *trace, float *final_out, int n, int m, int nsteps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  float shift = 0.0f;
  for (int t = 0; t < nsteps; ++t) {
    float s = 0.0f;
#pragma np parallel for reduction(+:s)
    for (int j = 0; j < m; ++j)
      s += a[(long long)i * m + j] * float(j + t + 1) + shift;
    acc += s;
    shift = a[(long long)i * m + (t % m)];
    trace[(long long)i * nsteps + t] = acc;
  }
  final_out[i] = acc + shift;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 1000)), m = int(args.get("m", 40)), nsteps = int(args.get("steps", 5));
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 21));
  float *trace = loops::device_zeros<float>(size_t(n) * nsteps);
  float *out = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * (double(n) * m * nsteps + n * nsteps), [&] { steps<<<(n + 63) / 64, 64>>>(a, trace, out, n, m, nsteps); });
  loops::ResultFile res(args);
  res.add(loops::from_device(trace, size_t(n) * nsteps));
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
