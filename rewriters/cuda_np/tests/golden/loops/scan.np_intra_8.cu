// A parallel loop with a scan (running sum written per element), a loop whose
// scalar keeps the last iteration's value (cuda-np.md 3.2), and a small local
// array read outside the parallel loops (shared-memory placement, 3.3).
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void prefix_rows(const float *a, float *prefix, float *totals, float *lasts, int *hist_out, int n, int m) {
  // CUDA-NP: 8 slaves, intra-warp: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (row >= n) return;
  NESTOR_NP_ARRAY_SHARED(nestor_np_group, int, hist, 8, 64); // 32 bytes < 384 - 0 per master: shared memory ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.3)
  float acc = 0.0f;
// (was: #pragma np parallel for scan(+:acc))
  // CUDA-NP: 8 slaves, intra-warp: iterations spread over the master and its slaves
  {
    nestor_np_group::scanner<nestor::op::add, float> nestor_scan(acc); // scan(+:acc) in iteration order (3.2)
    const long long nestor_lo = (long long)(0), nestor_hi = (long long)(m);
    const long long nestor_rounds = nestor_np_group::loop_rounds((nestor_hi > nestor_lo ? nestor_hi - nestor_lo : 0LL));
    for (long long nestor_round = 0; nestor_round < nestor_rounds; ++nestor_round) {
      int j = (int)(nestor_lo + nestor_round * 8 + nestor_np_group::slave_id());
      const bool nestor_valid = (long long)j < nestor_hi;
      float v = nestor_valid ? (a[(long long)row * m + j]) : (float)0;
      acc = nestor_scan.step(nestor_valid ? (float)(v) : nestor::op::add::identity<float>()).inclusive;
      if (nestor_valid) {
        prefix[(long long)row * m + j] = acc;
      }
    }
    acc = nestor_scan.total();
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
  if (nestor_np_group::is_master()) { totals[row] = acc; }
  float last = -1.0f;
// (was: #pragma np parallel for)
  // CUDA-NP: 8 slaves, intra-warp: iterations spread over the master and its slaves
  nestor_np_group::sync(); // the slaves read what the masters wrote
  {
    const long long nestor_none = -0x7fffffffffffffffLL - 1;
    long long nestor_last_iter = nestor_none; // the last iteration this thread ran
  for (int j = (0) + nestor_np_group::slave_id(); j < m; j += nestor_np_group::slave_size) { nestor_last_iter = (long long)j;
    last = a[(long long)row * m + j] * 2.0f;
    prefix[(long long)row * m + j] += last;
  }
    { // 'last' keeps the value of the last iteration (3.2): only its owner adds it
      const long long nestor_last = nestor_np_group::reduce<nestor::op::max>(nestor_last_iter);
      const float nestor_value = nestor_np_group::reduce<nestor::op::add>(nestor_last_iter == nestor_last ? last : float(0));
      if (nestor_last != nestor_none) last = nestor_value;
    }
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
  if (nestor_np_group::is_master()) { lasts[row] = last; }
// (was: #pragma np parallel for)
  // CUDA-NP: 8 slaves, intra-warp: iterations spread over the master and its slaves
  nestor_np_group::sync(); // the slaves read what the masters wrote
  {
  for (int k = (0) + nestor_np_group::slave_id(); k < 8; k += nestor_np_group::slave_size) hist[k] = k * row;
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
  if (nestor_np_group::is_master()) { hist_out[row] = hist[row % 8] + hist[7]; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 777)), m = int(args.get("m", 45));
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 14));
  float *prefix = loops::device_zeros<float>(size_t(n) * m);
  float *totals = loops::device_zeros<float>(size_t(n));
  float *lasts = loops::device_zeros<float>(size_t(n));
  int *hist = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 4.0 * (4.0 * n * m + 3.0 * n), [&] { prefix_rows<<<(n + 63) / 64, dim3(512, 1, 1) /* CUDA-NP: 8 slaves, intra-warp, was 64 */>>>(a, prefix, totals, lasts, hist, n, m); });
  loops::ResultFile res(args);
  res.add(loops::from_device(prefix, size_t(n) * m));
  res.add(loops::from_device(totals, size_t(n)));
  res.add(loops::from_device(lasts, size_t(n)));
  res.add(loops::from_device(hist, size_t(n)));
  return 0;
}
