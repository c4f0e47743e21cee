// Scans written in exclusive order (the running value is used before the
// iteration's update): per-row offsets through __restrict__ pointers under a
// pragma, and stream-compaction positions whose scan clause is inferred.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void exclusive_rows(const float *__restrict__ a, float *__restrict__ offsets, float *totals, const int *flags,
                               int *positions, int *counts, int n, int m) {
  // CUDA-NP: 4 slaves, inter-warp: block (64, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<64, 4>;
  const dim3 nestor_blockDim(64, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  bool nestor_active = true; // false once the original thread would have returned
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  nestor_active = nestor_active && !(row >= n); // was: if (row >= n) return; (inter-warp NP keeps every thread for the block barriers)
  float run = 0.0f;
// (was: #pragma np parallel for scan(+:run))
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves
  {
    nestor_np_group::scanner<nestor::op::add, float> nestor_scan(run); // scan(+:run) in iteration order (3.2)
    const long long nestor_lo = (long long)(0), nestor_hi = (long long)(m);
    const long long nestor_rounds = nestor_np_group::loop_rounds(!nestor_active ? 0LL : (nestor_hi > nestor_lo ? nestor_hi - nestor_lo : 0LL));
    for (long long nestor_round = 0; nestor_round < nestor_rounds; ++nestor_round) {
      int j = (int)(nestor_lo + nestor_round * 4 + nestor_np_group::slave_id());
      const bool nestor_valid = nestor_active && (long long)j < nestor_hi;
      const auto nestor_step = nestor_scan.step(nestor_valid ? (float)(a[(long long)row * m + j]) : nestor::op::add::identity<float>());
      if (nestor_valid) {
        run = nestor_step.exclusive; // before this iteration's update
        offsets[(long long)row * m + j] = run;
      }
      run = nestor_step.inclusive;
    }
    run = nestor_scan.total();
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
  if ((nestor_active && nestor_np_group::is_master())) { totals[row] = run; }
  int count = 0;
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for scan(+:count))
  nestor_np_group::sync(); // the slaves read what the masters wrote
  {
    nestor_np_group::scanner<nestor::op::add, int> nestor_scan(count); // scan(+:count) in iteration order (3.2)
    const long long nestor_lo = (long long)(0), nestor_hi = (long long)(m);
    const long long nestor_rounds = nestor_np_group::loop_rounds(!nestor_active ? 0LL : (nestor_hi > nestor_lo ? nestor_hi - nestor_lo : 0LL));
    for (long long nestor_round = 0; nestor_round < nestor_rounds; ++nestor_round) {
      int j = (int)(nestor_lo + nestor_round * 4 + nestor_np_group::slave_id());
      const bool nestor_valid = nestor_active && (long long)j < nestor_hi;
      int keep = nestor_valid ? (flags[(long long)row * m + j]) : (int)0;
      const auto nestor_step = nestor_scan.step(nestor_valid ? (int)(keep) : nestor::op::add::identity<int>());
      if (nestor_valid) {
        count = nestor_step.exclusive; // before this iteration's update
        positions[(long long)row * m + j] = count;
      }
      count = nestor_step.inclusive;
    }
    count = nestor_scan.total();
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
  if ((nestor_active && nestor_np_group::is_master())) { counts[row] = count; }
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
    exclusive_rows<<<(n + 63) / 64, dim3(64, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 64 */>>>(a, offsets, totals, flags, positions, counts, n, m);
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(offsets, size_t(n) * m));
  res.add(loops::from_device(totals, size_t(n)));
  res.add(loops::from_device(positions, size_t(n) * m));
  res.add(loops::from_device(counts, size_t(n)));
  return 0;
}
