// A parallel loop inside a sequential time-step loop (issue 4): the outer
// loop runs in every thread of a group; the master updates state between the
// steps (from memory, so the next step's parallel loop needs it broadcast)
// and writes one output per step.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void steps(const float *a, float *trace, float *final_out, int n, int m, int nsteps) {
  // CUDA-NP: 4 slaves, inter-warp: block (64, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<64, 4>;
  const dim3 nestor_blockDim(64, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  bool nestor_active = true; // false once the original thread would have returned
  int i = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  nestor_active = nestor_active && !(i >= n); // was: if (i >= n) return; (inter-warp NP keeps every thread for the block barriers)
  float acc = 0.0f;
  float shift = 0.0f;
  for (int t = 0; t < nsteps; ++t) {
    float s = 0.0f;
// (was: #pragma np parallel for reduction(+:s))
    // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves
    nestor_np_group::sync(); // the slaves read what the masters wrote
    shift = nestor_np_group::read_from_master(shift); // live-in (3.1)
    {
      const float nestor_s_in = s;
      s = nestor::op::add::identity<float>(); // this thread's partial
    for (int j = (0) + nestor_np_group::slave_id(); nestor_active && (j < m); j += nestor_np_group::slave_size)
      s += a[(long long)i * m + j] * float(j + t + 1) + shift;
      s = nestor::op::add{}(nestor_s_in, nestor_np_group::reduce<nestor::op::add>(s)); // reduction(+:s) (3.2)
    }
    acc += s;
    if ((nestor_active && nestor_np_group::is_master())) { shift = a[(long long)i * m + (t % m)]; }
    if ((nestor_active && nestor_np_group::is_master())) { trace[(long long)i * nsteps + t] = acc; }
  }
  if ((nestor_active && nestor_np_group::is_master())) { final_out[i] = acc + shift; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("n", 1000)), m = int(args.get("m", 40)), nsteps = int(args.get("steps", 5));
  float *a = loops::to_device(loops::random_floats(size_t(n) * m, 21));
  float *trace = loops::device_zeros<float>(size_t(n) * nsteps);
  float *out = loops::device_zeros<float>(size_t(n));
  loops::timed(args, 4.0 * (double(n) * m * nsteps + n * nsteps), [&] { steps<<<(n + 63) / 64, dim3(64, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 64 */>>>(a, trace, out, n, m, nsteps); });
  loops::ResultFile res(args);
  res.add(loops::from_device(trace, size_t(n) * nsteps));
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
