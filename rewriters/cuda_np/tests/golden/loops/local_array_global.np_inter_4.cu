// Thread-local arrays that CUDA-NP must move to global memory (cuda-np.md
// 3.3): read outside the parallel loops at a data-dependent index (so not
// partitionable over the slaves' registers) and too big for the 384-byte
// shared-memory budget. Two arrays share the pool the host passes in.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

#define NPOINTS 150
#define NBINS 100

__global__ void ellipse_global(const float *grad_x, const float *weights, const int *pick, float *gicov, int *bins_out,
                               int count, void *nestor_np_pool /* CUDA-NP: 4 slaves, inter-warp: global memory for thread-local arrays */) {
  // CUDA-NP: 4 slaves, inter-warp: block (128, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<128, 4>;
  const dim3 nestor_blockDim(128, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  bool nestor_active = true; // false once the original thread would have returned
  int i = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  nestor_active = nestor_active && !(i >= count); // was: if (i >= count) return; (inter-warp NP keeps every thread for the block barriers)
  NESTOR_NP_ARRAY_GLOBAL_AT(nestor_np_group, float, Grad, 150, nestor_np_pool, 0); // 600 bytes: over the shared-memory budget, global memory ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.3)
  NESTOR_NP_ARRAY_GLOBAL_AT(nestor_np_group, int, bins, 100, nestor_np_pool, 608); // 400 bytes: over the shared-memory budget, global memory ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.3)
  float sum = 0.0f;
// (was: #pragma np parallel for)
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves
  {
  for (int n = (0) + nestor_np_group::slave_id(); nestor_active && (n < NPOINTS); n += nestor_np_group::slave_size)
    Grad[n] = grad_x[(long long)i * NPOINTS + n] * weights[n];
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
// (was: #pragma np parallel for)
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves
  {
  for (int b = (0) + nestor_np_group::slave_id(); nestor_active && (b < NBINS); b += nestor_np_group::slave_size)
    bins[b] = b * (i % 7) - 3;
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
// (was: #pragma np parallel for reduction(+:sum))
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves
  {
    const float nestor_sum_in = sum;
    sum = nestor::op::add::identity<float>(); // this thread's partial
  for (int n = (0) + nestor_np_group::slave_id(); nestor_active && (n < NPOINTS); n += nestor_np_group::slave_size) sum += Grad[n];
    sum = nestor::op::add{}(nestor_sum_in, nestor_np_group::reduce<nestor::op::add>(sum)); // reduction(+:sum) (3.2)
  }
  const int p = ((nestor_active && nestor_np_group::is_master()) ? (int)(pick[i]) : (int)0);
  if ((nestor_active && nestor_np_group::is_master())) { gicov[i] = sum / NPOINTS + Grad[p % NPOINTS] * 0.5f; }
  if ((nestor_active && nestor_np_group::is_master())) { bins_out[i] = bins[p % NBINS] + bins[(p / 3) % NBINS]; }
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
      ellipse_global<<<(c + 127) / 128, dim3(128, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 128 */>>>(g, w, pick, out, bins, c, nestor::np::array_pool<1>(dim3((c + 127) / 128), 128, 1008, "ellipse_global"));
    }
  });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(count)));
  res.add(loops::from_device(bins, size_t(count)));
  return 0;
}
