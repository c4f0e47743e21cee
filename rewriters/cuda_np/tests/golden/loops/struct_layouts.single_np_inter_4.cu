// Structs whose layout is not a run of 32-bit words, copied into a local
// before the loop: CUDA-NP moves the master's copy to its slaves through
// its object representation (nestor::detail::shfl_any rounds it up to whole
// words; inter-warp slots keep the type's alignment):
//   packed_weight: bit-fields in one word (`unsigned kind : 4, ...`), as
//     graph codes pack an edge's kind and weight;
//   aligned_centre: an alignas(32) record of three floats (12 bytes of
//     fields, 32 with its padding), as vectorised loads want it;
//   single_field: a one-field struct initialised by braces (`= {scale[i]}`),
//     which CUDA-NP writes as the expression `Weight{scale[i]}`;
//   local_span: a struct type declared inside the kernel, initialised by a
//     brace list of its two fields.
// The host checks every result against a serial reference.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

struct Packed {
  unsigned kind : 4;
  unsigned weight : 12;
  unsigned tag : 16;
};

struct alignas(32) Centre {
  float x, y, z;
};

__global__ void packed_weight(const Packed *items, const int *start, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Packed p = items[i];
  float s = 0.0f;
  for (int k = start[i]; k < start[i + 1]; ++k) s += w[k] * float(p.weight) + float(p.kind);
  out[i] = s + float(p.tag & 7u);
}

__global__ void aligned_centre(const Centre *centres, const int *start, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Centre c = centres[i];
  float s = 0.0f;
  for (int k = start[i]; k < start[i + 1]; ++k) s += w[k] * c.x - c.y;
  out[i] = s * c.z;
}

struct Weight {
  float w;
};

__global__ void single_field(const float *scale, const int *start, const float *w, float *out, int n) {
  // CUDA-NP: 4 slaves, inter-warp: block (128, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<128, 4>;
  const dim3 nestor_blockDim(128, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  bool nestor_active = true; // false once the original thread would have returned
  int i = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  nestor_active = nestor_active && !(i >= n); // was: if (i >= n) return; (inter-warp NP keeps every thread for the block barriers)
  const Weight c = nestor_np_group::read_from_master((nestor_active && nestor_np_group::is_master()) ? (Weight)(Weight{scale[i]}) : Weight{});
  float s = 0.0f;
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:s))
  {
    const float nestor_s_in = s;
    s = nestor::op::add::identity<float>(); // this thread's partial
  for (int k = (nestor_active ? (start[i]) : (int)0) + nestor_np_group::slave_id(); nestor_active && (k < start[i + 1]); k += nestor_np_group::slave_size) s += w[k] * c.w;
    s = nestor::op::add{}(nestor_s_in, nestor_np_group::reduce<nestor::op::add>(s)); // reduction(+:s) (3.2)
  }
  if ((nestor_active && nestor_np_group::is_master())) { out[i] = s; }
}

__global__ void local_span(const float *lo, const float *hi, const int *start, const float *w, float *out, int n) {
  struct Span {
    float lo, hi;
  };
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Span sp = {lo[i], hi[i]};
  float s = 0.0f;
  for (int k = start[i]; k < start[i + 1]; ++k) s += w[k] * (sp.hi - sp.lo);
  out[i] = s + sp.lo;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 20000)), avg = int(args.get("avg", 12));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  const loops::Csr g = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 51)));
  const size_t nnz = g.col.size();
  const std::vector<float> w_h = loops::random_floats(nnz, 52), cs = loops::random_floats(size_t(n) * 3, 53),
                           lo_h = loops::random_floats(size_t(n), 54), hi_h = loops::random_floats(size_t(n), 55);
  std::vector<Packed> packed_h(static_cast<size_t>(n));
  std::vector<Centre> centres_h(static_cast<size_t>(n));
  for (size_t i = 0; i < size_t(n); ++i) {
    packed_h[i].kind = unsigned(i * 7u) & 15u;
    packed_h[i].weight = unsigned(i * 2654435761u >> 20) & 255u;
    packed_h[i].tag = unsigned(i * 40503u) & 65535u;
    centres_h[i] = Centre{cs[3 * i], cs[3 * i + 1], cs[3 * i + 2]};
  }
  Packed *packed = loops::to_device(packed_h);
  Centre *centres = loops::to_device(centres_h);
  int *rowp = loops::to_device(g.rowptr);
  float *w = loops::to_device(w_h), *lo = loops::to_device(lo_h), *hi = loops::to_device(hi_h);
  float *pw = loops::device_zeros<float>(size_t(n)), *ac = loops::device_zeros<float>(size_t(n)),
        *sf = loops::device_zeros<float>(size_t(n)), *ls = loops::device_zeros<float>(size_t(n));
  const int blocks = (n + 127) / 128;
  loops::timed(args, 8.0 * nnz + 48.0 * n, [&] {
    packed_weight<<<blocks, 128>>>(packed, rowp, w, pw, n);
    aligned_centre<<<blocks, 128>>>(centres, rowp, w, ac, n);
    single_field<<<blocks, dim3(128, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 128 */>>>(lo, rowp, w, sf, n);
    local_span<<<blocks, 128>>>(lo, hi, rowp, w, ls, n);
  });
  const std::vector<float> pw_h = loops::from_device(pw, size_t(n)), ac_h = loops::from_device(ac, size_t(n)),
                           sf_h = loops::from_device(sf, size_t(n)), ls_h = loops::from_device(ls, size_t(n));
  // The serial reference.
  auto close = [](double got, double want) { return std::fabs(got - want) <= 1e-3 * (1.0 + std::fabs(want)); };
  for (size_t i = 0; i < size_t(n); ++i) {
    double p = 0.0, a = 0.0, f = 0.0, sp = 0.0;
    for (int k = g.rowptr[i]; k < g.rowptr[i + 1]; ++k) {
      p += double(w_h[size_t(k)]) * packed_h[i].weight + packed_h[i].kind;
      a += double(w_h[size_t(k)]) * centres_h[i].x - centres_h[i].y;
      f += double(w_h[size_t(k)]) * lo_h[i];
      sp += double(w_h[size_t(k)]) * (hi_h[i] - lo_h[i]);
    }
    p += double(packed_h[i].tag & 7u);
    a *= centres_h[i].z;
    sp += lo_h[i];
    if (!close(pw_h[i], p) || !close(ac_h[i], a) || !close(sf_h[i], f) || !close(ls_h[i], sp)) {
      std::fprintf(stderr, "FAIL: row %zu: packed %g, centre %g, single %g, span %g; the serial reference gives %g, %g, %g, %g\n",
                   i, double(pw_h[i]), double(ac_h[i]), double(sf_h[i]), double(ls_h[i]), p, a, f, sp);
      return 1;
    }
  }
  loops::ResultFile res(args);
  res.add(pw_h);
  res.add(ac_h);
  res.add(sf_h);
  res.add(ls_h);
  return 0;
}
