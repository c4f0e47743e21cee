// A kernel shaped like cuda-np.md Figure 5 (ellipsematching): a thread-local
// array filled by one parallel loop and reduced by two more; the array is
// indexed only by the loop iterator, so CUDA-NP partitions it over the slaves.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

#define NPOINTS 150

__global__ void ellipse(const float *grad_x, const float *weights, float *gicov, int count, float threshold) {
  // CUDA-NP: 8 slaves, intra-warp: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int i = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (i >= count) return;
  NESTOR_NP_ARRAY_REGISTERS(nestor_np_group, float, Grad, 150); // 600 bytes, indexed only by the iterator: partitioned over the slaves ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.3)
  float sum = 0.0f, var = 0.0f, ep = 0.0f;
// (was: #pragma np parallel for)
  // CUDA-NP: 8 slaves, intra-warp: iterations spread over the master and its slaves
  {
  for (int n = (0) + nestor_np_group::slave_id(); n < NPOINTS; n += nestor_np_group::slave_size)
    Grad[n] = grad_x[(long long)i * NPOINTS + n] * weights[n];
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
// (was: #pragma np parallel for reduction(+:sum))
  // CUDA-NP: 8 slaves, intra-warp: iterations spread over the master and its slaves
  {
    const float nestor_sum_in = sum;
    sum = nestor::op::add::identity<float>(); // this thread's partial
  for (int n = (0) + nestor_np_group::slave_id(); n < NPOINTS; n += nestor_np_group::slave_size) sum += Grad[n];
    sum = nestor::op::add{}(nestor_sum_in, nestor_np_group::reduce<nestor::op::add>(sum)); // reduction(+:sum) (3.2)
  }
  float ave = sum / ((float)NPOINTS);
// (was: #pragma np parallel for reduction(+:var,ep))
  // CUDA-NP: 8 slaves, intra-warp: iterations spread over the master and its slaves
  {
    const float nestor_var_in = var;
    var = nestor::op::add::identity<float>(); // this thread's partial
    const float nestor_ep_in = ep;
    ep = nestor::op::add::identity<float>(); // this thread's partial
  for (int n = (0) + nestor_np_group::slave_id(); n < NPOINTS; n += nestor_np_group::slave_size) {
    float d = Grad[n] - ave;
    var += d * d;
    ep += d;
  }
    var = nestor::op::add{}(nestor_var_in, nestor_np_group::reduce<nestor::op::add>(var)); // reduction(+:var) (3.2)
    ep = nestor::op::add{}(nestor_ep_in, nestor_np_group::reduce<nestor::op::add>(ep)); // reduction(+:ep) (3.2)
  }
  if (nestor_np_group::is_master()) { if (((ave * ave) / var) > threshold)
    gicov[i] = ave / sqrtf(var) + ep;
  else
    gicov[i] = -1.0f; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int count = int(args.get("n", 4000));
  float *g = loops::to_device(loops::random_floats(size_t(count) * NPOINTS, 4, 0.f, 1.f));
  float *w = loops::to_device(loops::random_floats(NPOINTS, 5, 0.5f, 1.5f));
  float *out = loops::device_zeros<float>(size_t(count));
  loops::timed(args, 4.0 * (double(count) * NPOINTS + count), [&] { ellipse<<<(count + 127) / 128, dim3(1024, 1, 1) /* CUDA-NP: 8 slaves, intra-warp, was 128 */>>>(g, w, out, count, 2.0f); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(count)));
  return 0;
}
