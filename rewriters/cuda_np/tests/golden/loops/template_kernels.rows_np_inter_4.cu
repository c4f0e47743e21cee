// Kernels written as templates, as cuda-samples (reduction<T, blockSize>),
// CUB-style libraries and tuned applications write them: the model holds
// each template once (its pattern, the text every instantiation shares), and
// a rewrite edits that text, so what it proves must hold for every
// instantiation.
//   scaled_rows<SCALE>: a float sum over a CSR row scaled by a non-type
//     template parameter; launched as scaled_rows<2> and scaled_rows<3>, so
//     CUDA-NP reshapes both launches;
//   window_mean<RADIUS>: a sum over a window whose trip count is a template
//     parameter (2 * RADIUS + 1), launched with RADIUS 2 and 5;
//   typed_rows<Real>: an accumulator of the template's own type. Whether its
//     `+=` is a reduction depends on the type it is instantiated with:
//     refused, with the reason (rewriters/cuda_np/tests/cases.cmake).
// The host checks every result against a serial reference.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

template <int SCALE>
__global__ void scaled_rows(const int *start, const float *w, float *out, int n) {
  // CUDA-NP: 4 slaves, inter-warp: block (128, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<128, 4>;
  const dim3 nestor_blockDim(128, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  bool nestor_active = true; // false once the original thread would have returned
  int i = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  nestor_active = nestor_active && !(i >= n); // was: if (i >= n) return; (inter-warp NP keeps every thread for the block barriers)
  float s = 0.0f;
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:s))
  {
    const float nestor_s_in = s;
    s = nestor::op::add::identity<float>(); // this thread's partial
  for (int k = (nestor_active ? (start[i]) : (int)0) + nestor_np_group::slave_id(); nestor_active && (k < start[i + 1]); k += nestor_np_group::slave_size) s += w[k] * float(SCALE);
    s = nestor::op::add{}(nestor_s_in, nestor_np_group::reduce<nestor::op::add>(s)); // reduction(+:s) (3.2)
  }
  if ((nestor_active && nestor_np_group::is_master())) { out[i] = s; }
}

template <int RADIUS>
__global__ void window_mean(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    const int j = min(max(i + k, 0), n - 1);
    s += x[j];
  }
  out[i] = s / float(2 * RADIUS + 1);
}

template <class Real>
__global__ void typed_rows(const int *start, const Real *w, Real *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Real s = 0;
  for (int k = start[i]; k < start[i + 1]; ++k) s += w[k];
  out[i] = s;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 20000)), avg = int(args.get("avg", 12));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  const loops::Csr g = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 41)));
  const size_t nnz = g.col.size();
  const std::vector<float> w_h = loops::random_floats(nnz, 42), x_h = loops::random_floats(size_t(n), 43);
  int *rowp = loops::to_device(g.rowptr);
  float *w = loops::to_device(w_h), *x = loops::to_device(x_h);
  float *twice = loops::device_zeros<float>(size_t(n)), *thrice = loops::device_zeros<float>(size_t(n)),
        *narrow = loops::device_zeros<float>(size_t(n)), *wide = loops::device_zeros<float>(size_t(n)),
        *typed = loops::device_zeros<float>(size_t(n));
  const int blocks = (n + 127) / 128;
  loops::timed(args, 16.0 * nnz + 60.0 * n, [&] {
    scaled_rows<2><<<blocks, dim3(128, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 128 */>>>(rowp, w, twice, n);
    scaled_rows<3><<<blocks, dim3(128, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 128 */>>>(rowp, w, thrice, n);
    window_mean<2><<<blocks, 128>>>(x, narrow, n);
    window_mean<5><<<blocks, 128>>>(x, wide, n);
    typed_rows<float><<<blocks, 128>>>(rowp, w, typed, n);
  });
  const std::vector<float> twice_h = loops::from_device(twice, size_t(n)),
                           thrice_h = loops::from_device(thrice, size_t(n)),
                           narrow_h = loops::from_device(narrow, size_t(n)),
                           wide_h = loops::from_device(wide, size_t(n)), typed_h = loops::from_device(typed, size_t(n));
  // The serial reference.
  auto close = [](double got, double want) { return std::fabs(got - want) <= 1e-3 * (1.0 + std::fabs(want)); };
  auto window = [&](size_t i, int radius) {
    double s = 0.0;
    for (int k = -radius; k <= radius; ++k) s += x_h[size_t(std::min(std::max(int(i) + k, 0), n - 1))];
    return s / double(2 * radius + 1);
  };
  for (size_t i = 0; i < size_t(n); ++i) {
    double row = 0.0;
    for (int k = g.rowptr[i]; k < g.rowptr[i + 1]; ++k) row += w_h[size_t(k)];
    if (!close(twice_h[i], 2.0 * row) || !close(thrice_h[i], 3.0 * row) || !close(narrow_h[i], window(i, 2)) ||
        !close(wide_h[i], window(i, 5)) || !close(typed_h[i], row)) {
      std::fprintf(stderr,
                   "FAIL: row %zu: %g %g %g %g %g; the serial reference gives %g %g %g %g %g\n", i,
                   double(twice_h[i]), double(thrice_h[i]), double(narrow_h[i]), double(wide_h[i]),
                   double(typed_h[i]), 2.0 * row, 3.0 * row, window(i, 2), window(i, 5), row);
      return 1;
    }
  }
  loops::ResultFile res(args);
  res.add(twice_h);
  res.add(thrice_h);
  res.add(narrow_h);
  res.add(wide_h);
  res.add(typed_h);
  return 0;
}
