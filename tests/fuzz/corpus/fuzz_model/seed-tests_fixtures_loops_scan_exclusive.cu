// Scans written in exclusive order (the running value is used before the
// iteration's update): per-row offsets through __restrict__ pointers under a
// pragma, and stream-compaction positions whose scan clause is inferred.
#include "loops_harness.cuh"

__global__ void exclusive_rows(const float *__restrict__ a, float *__restrict__ offsets, float *totals, const int *flags,
                               int *positions, int *counts, int n, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float run = 0.0f;
#pragma np parallel for scan(+:run)
  for (int j = 0; j < m; ++j) {
    offsets[(long long)row * m + j] = run;
    run += a[(long long)row * m + j];
  }
  totals[row] = run;
  int count = 0;
  for (int j = 0; j < m; ++j) {
    const int keep = flags[(long long)row * m + j];
    positions[(long long)row * m + j] = count;
    count += keep;
  }
  counts[row] = count;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 777)), m = int(args.get("m", 45));
  std::vector<int> hf(size_t(n) * m);
  for (size_t i = 0; i < hf.size(); ++i) hf[i] = int((i * 2654435761u) >> 7) % 3 == 0;
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 31));
  int *flags = loops::to_device(hf);
  float *offsets = loops::device_zeros<float>(size_t(n) * m);
  float *totals = loops::device_zeros<float>(size_t(n));
  int *positions = loops::device_zeros<int>(size_t(n) * m);
  int *counts = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 4.0 * (4.0 * n * m + 2.0 * n), [&] {
    exclusive_rows<<<(n + 63) / 64, 64>>>(a, offsets, totals, flags, positions, counts, n, m);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(offsets, size_t(n) * m));
  res.add(loops::from_device(totals, size_t(n)));
  res.add(loops::from_device(positions, size_t(n) * m));
  res.add(loops::from_device(counts, size_t(n)));
  return 0;
}
