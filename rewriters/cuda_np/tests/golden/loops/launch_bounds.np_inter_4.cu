// __launch_bounds__(256) with a 64-thread launch: 2 and 4 slaves fit as is; with 8 or 16 the launch is reshaped.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void __launch_bounds__(256) dot_rows(const float *a, const float *b, float *out, int n, int m) {
  // CUDA-NP: 4 slaves, inter-warp: block (64, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<64, 4>;
  const dim3 nestor_blockDim(64, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  bool nestor_active = true; // false once the original thread would have returned
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  nestor_active = nestor_active && !(row >= n); // was: if (row >= n) return; (inter-warp NP keeps every thread for the block barriers)
  float s = 0.0f;
// (was: #pragma np parallel for reduction(+:s))
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves
  {
    const float nestor_s_in = s;
    s = nestor::op::add::identity<float>(); // this thread's partial
  for (int j = (0) + nestor_np_group::slave_id(); nestor_active && (j < m); j += nestor_np_group::slave_size)
    s += a[(long long)row * m + j] * b[j];
    s = nestor::op::add{}(nestor_s_in, nestor_np_group::reduce<nestor::op::add>(s)); // reduction(+:s) (3.2)
  }
  if ((nestor_active && nestor_np_group::is_master())) { out[row] = s; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 3000)), m = int(args.get("m", 50));
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 12));
  float *b = loops::to_device(loops::random_floats(size_t(m), 13));
  float *out = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * (double(n) * m + m + n), [&] { dot_rows<<<(n + 63) / 64, dim3(64, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 64 */>>>(a, b, out, n, m); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
