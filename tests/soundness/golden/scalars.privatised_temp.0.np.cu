// Soundness suite: scalars and objects a loop body keeps between iterations.
// Each loop carries its ground truth on its header line:
//   truth: independent  (iterations may run on other threads; reductions and
//                        scans of built-in types aside)
//   truth: carried      (an iteration depends on another: nothing may be offered)
//   truth: collective   (a collective operation: which threads run it matters)
//   truth: unproven     (independent in fact, but Nestor cannot prove it and
//                        refuses with a reason: a known, stated limitation)
#include "loops_harness.cuh"
#include <nestor/np.cuh>

#define N 64

struct Acc {
  float v;
  __device__ Acc &operator+=(float x) { v += x; return *this; }
};

struct Vec4 { float x, y, z, w; };
__device__ inline void operator+=(Vec4 &a, Vec4 b) { a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w; }

__device__ void bump(float &acc, float v) { acc += v; }
__device__ float square(float v) { return v * v; }
__device__ void accumulate_into(float *acc, float v) { *acc += v; }

__global__ void plain_map(const float *in, float *out, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = in[row * N + i] * 2.0f; // truth: independent
}

__global__ void builtin_sum(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int i = 0; i < N; ++i) sum += in[row * N + i]; // truth: independent
  out[row] = sum;
}

__global__ void builtin_max(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float best = in[row * N];
  for (int i = 0; i < N; ++i) best = fmaxf(best, in[row * N + i]); // truth: independent
  out[row] = best;
}

__global__ void struct_running_sum(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  Acc a{0.0f};
  for (int i = 0; i < N; ++i) { // truth: carried
    a += in[row * N + i];
    out[row * N + i] = a.v;
  }
}

__global__ void struct_sum_only(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  Acc a{0.0f};
  for (int i = 0; i < N; ++i) a += in[row * N + i]; // truth: carried
  out[row] = a.v;
}

__global__ void vec4_box_filter(const Vec4 *in, Vec4 *out, int w) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  Vec4 t{0, 0, 0, 0};
  for (int x = 0; x < N; ++x) { // truth: carried
    t += in[y * w + x];
    out[y * w + x] = t;
  }
}

__global__ void member_accumulate(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float2 acc = make_float2(0.f, 0.f);
  for (int i = 0; i < N; ++i) acc.x += in[row * N + i]; // truth: carried
  out[row] = acc.x;
}

__global__ void previous_value(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float prev = 0.0f;
  for (int i = 0; i < N; ++i) { // truth: carried
    out[row * N + i] = in[row * N + i] + prev;
    prev = in[row * N + i];
  }
}

__global__ void privatised_temp(const float *in, float *out) {
  // CUDA-NP: 4 slaves, inter-warp: block (64, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<64, 4>;
  const dim3 nestor_blockDim(64, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  float t;
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for)
  {
    const long long nestor_none = -0x7fffffffffffffffLL - 1;
    long long nestor_last_iter = nestor_none; // the last iteration this thread ran
  for (int i = (0) + nestor_np_group::slave_id(); i < N; i += nestor_np_group::slave_size) { nestor_last_iter = (long long)i; // truth: independent
    t = in[row * N + i] * 3.0f;
    out[row * N + i] = t + 1.0f;
  }
    { // 't' keeps the value of the last iteration (3.2): only its owner adds it
      const long long nestor_last = nestor_np_group::reduce<nestor::op::max>(nestor_last_iter);
      const float nestor_value = nestor_np_group::reduce<nestor::op::add>(nestor_last_iter == nestor_last ? t : float(0));
      if (nestor_last != nestor_none) t = nestor_value;
    }
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
}

__global__ void conditional_last(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float last = 0.0f;
  for (int i = 0; i < N; ++i) { // truth: carried
    if (in[row * N + i] > 0.0f) last = in[row * N + i];
    out[row * N + i] = last;
  }
}

__global__ void decay(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float x = 0.0f;
  for (int i = 0; i < N; ++i) x = x * 0.5f + in[row * N + i]; // truth: carried
  out[row] = x;
}

__global__ void reference_helper(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int i = 0; i < N; ++i) bump(acc, in[row * N + i]); // truth: carried
  out[row] = acc;
}

__global__ void pointer_helper(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int i = 0; i < N; ++i) accumulate_into(&acc, in[row * N + i]); // truth: carried
  out[row] = acc;
}

__global__ void pure_helper(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = square(in[row * N + i]); // truth: independent
}

__global__ void counter_value_used(const float *in, int *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int next = 0;
  for (int i = 0; i < N; ++i) // truth: carried
    if (in[row * N + i] > 0.0f) out[row * N + next++] = i;
}

__global__ void compaction_pointer(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float *o = out + row * N;
  for (int i = 0; i < N; ++i) // truth: carried
    if (in[row * N + i] > 0.0f) *o++ = in[row * N + i];
}

__global__ void assignment_value_used(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int i = 0; i < N; ++i) out[row * N + i] = (acc += in[row * N + i]); // truth: carried
}

__global__ void count_positive(const float *in, int *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int count = 0;
  for (int i = 0; i < N; ++i) // truth: independent
    if (in[row * N + i] > 0.0f) count++;
  out[row] = count;
}

__global__ void reduction_then_reset(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int i = 0; i < N; ++i) { // truth: carried
    s += in[row * N + i];
    if (s > 100.0f) s = 0.0f;
  }
  out[row] = s;
}

__global__ void reference_alias(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float total = 0.0f;
  for (int i = 0; i < N; ++i) { // truth: carried
    float &r = total;
    r += in[row * N + i];
  }
  out[row] = total;
}

__global__ void inclusive_scan(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int i = 0; i < N; ++i) { // truth: independent
    s += in[row * N + i];
    out[row * N + i] = s;
  }
}

// The independent kernels on deterministic inputs; the GPU differential test
// (tests/soundness/gpu) runs each offered rewrite of them against this.
int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int blocks = int(args.get("blocks", 2)), rows = blocks * 64;
  const size_t cells = size_t(rows) * N;
  float *in = loops::to_device(loops::random_floats(cells, 11));
  float *out = loops::device_zeros<float>(cells);
  int *counts = loops::device_zeros<int>(size_t(rows));
  loops::ResultFile file(args);
  auto keep = [&](size_t n) { file.add(loops::from_device(out, n)); NESTOR_CUDA_CHECK(cudaMemset(out, 0, cells * sizeof(float))); };
  plain_map<<<blocks, 64>>>(in, out, rows);
  keep(cells);
  builtin_sum<<<blocks, 64>>>(in, out);
  keep(size_t(rows));
  builtin_max<<<blocks, 64>>>(in, out);
  keep(size_t(rows));
  privatised_temp<<<blocks, dim3(64, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 64 */>>>(in, out);
  keep(cells);
  pure_helper<<<blocks, 64>>>(in, out);
  keep(cells);
  inclusive_scan<<<blocks, 64>>>(in, out);
  keep(cells);
  count_positive<<<blocks, 64>>>(in, counts);
  file.add(loops::from_device(counts, size_t(rows)));
  return 0;
}
