// Whole structs copied into locals, as particle and graph codes write them
// (cuda-samples' N-body reads a float4 body, Rodinia's and LonestarGPU's
// kernels a node record): CUDA-NP computes such a local on the master and
// its slaves read the master's copy, moved word by word (docs/rewrites-loops.md):
//   neighbour_force: `const Body me = bodies[i];` before the loop, read in
//     it, and `const Body q = bodies[nbr[k]];` gathered inside it;
//   drift_sum: a float4 (`float4 v = vel[i];`), changed by the master
//     before the loop and read in it;
//   bounded_mass: a struct of three fields read after the loop too.
// The host checks every result against a serial reference.
#include "loops_harness.cuh"
#include <nestor/np.cuh>

struct Body {
  float x, y, mass, pad;
};

struct Bounds {
  int lo, hi;
  float scale;
};

__global__ void neighbour_force(const Body *bodies, const int *start, const int *nbr, float *force, int n) {
  // CUDA-NP: 4 slaves, inter-warp: block (128, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<128, 4>;
  const dim3 nestor_blockDim(128, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  bool nestor_active = true; // false once the original thread would have returned
  int i = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  nestor_active = nestor_active && !(i >= n); // was: if (i >= n) return; (inter-warp NP keeps every thread for the block barriers)
  const Body me = nestor_np_group::read_from_master((nestor_active && nestor_np_group::is_master()) ? (Body)(bodies[i]) : Body{});
  float f = 0.0f;
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:f))
  {
    const float nestor_f_in = f;
    f = nestor::op::add::identity<float>(); // this thread's partial
  for (int k = (nestor_active ? (start[i]) : (int)0) + nestor_np_group::slave_id(); nestor_active && (k < start[i + 1]); k += nestor_np_group::slave_size) {
    const Body q = bodies[nbr[k]];
    const float dx = q.x - me.x, dy = q.y - me.y;
    f += q.mass * me.mass * dx / (dx * dx + dy * dy + 0.01f);
  }
    f = nestor::op::add{}(nestor_f_in, nestor_np_group::reduce<nestor::op::add>(f)); // reduction(+:f) (3.2)
  }
  if ((nestor_active && nestor_np_group::is_master())) { force[i] = f; }
}

__global__ void drift_sum(const float4 *vel, const int *start, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = vel[i];
  v.x = v.x * 0.5f + v.w;
  float s = 0.0f;
  for (int k = start[i]; k < start[i + 1]; ++k) s += w[k] * v.x + v.y;
  out[i] = s + v.z;
}

__global__ void bounded_mass(const Bounds *bounds, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Bounds b = bounds[i];
  float s = 0.0f;
  for (int k = b.lo; k < b.hi; ++k) s += w[k];
  out[i] = s * b.scale + float(b.hi - b.lo);
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 20000)), avg = int(args.get("avg", 12));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  const loops::Csr g = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 31)));
  const size_t nnz = g.col.size();
  const std::vector<float> xs = loops::random_floats(size_t(n), 32), ys = loops::random_floats(size_t(n), 33),
                           ms = loops::random_floats(size_t(n), 34, 0.5f, 2.f), w_h = loops::random_floats(nnz, 35),
                           vs = loops::random_floats(size_t(n) * 4, 36), sc = loops::random_floats(size_t(n), 37);
  std::vector<Body> bodies_h(static_cast<size_t>(n));
  std::vector<float4> vel_h(static_cast<size_t>(n));
  std::vector<Bounds> bounds_h(static_cast<size_t>(n));
  for (size_t i = 0; i < size_t(n); ++i) {
    bodies_h[i] = Body{xs[i], ys[i], ms[i], 0.0f};
    vel_h[i] = make_float4(vs[4 * i], vs[4 * i + 1], vs[4 * i + 2], vs[4 * i + 3]);
    // Every other row's range is shortened by one (an empty range stays empty).
    const int lo = g.rowptr[i], hi = g.rowptr[i + 1];
    bounds_h[i] = Bounds{lo, (i % 2 && hi > lo) ? hi - 1 : hi, sc[i]};
  }
  Body *bodies = loops::to_device(bodies_h);
  float4 *vel = loops::to_device(vel_h);
  Bounds *bounds = loops::to_device(bounds_h);
  int *rowp = loops::to_device(g.rowptr), *adj = loops::to_device(g.col);
  float *w = loops::to_device(w_h);
  float *force = loops::device_zeros<float>(size_t(n)), *drift = loops::device_zeros<float>(size_t(n)),
        *mass = loops::device_zeros<float>(size_t(n));
  const int blocks = (n + 127) / 128;
  loops::timed(args, 24.0 * nnz + 40.0 * n, [&] {
    neighbour_force<<<blocks, dim3(128, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 128 */>>>(bodies, rowp, adj, force, n);
    drift_sum<<<blocks, 128>>>(vel, rowp, w, drift, n);
    bounded_mass<<<blocks, 128>>>(bounds, w, mass, n);
  });
  const std::vector<float> force_h = loops::from_device(force, size_t(n)), drift_h = loops::from_device(drift, size_t(n)),
                           mass_h = loops::from_device(mass, size_t(n));
  // The serial reference.
  auto close = [](double got, double want) { return std::fabs(got - want) <= 1e-3 * (1.0 + std::fabs(want)); };
  for (size_t i = 0; i < size_t(n); ++i) {
    double f = 0.0, d = 0.0, m = 0.0;
    const float vx = vel_h[i].x * 0.5f + vel_h[i].w;
    for (int k = g.rowptr[i]; k < g.rowptr[i + 1]; ++k) {
      const Body &q = bodies_h[size_t(g.col[size_t(k)])];
      const double dx = double(q.x) - bodies_h[i].x, dy = double(q.y) - bodies_h[i].y;
      f += double(q.mass) * bodies_h[i].mass * dx / (dx * dx + dy * dy + 0.01);
      d += double(w_h[size_t(k)]) * vx + vel_h[i].y;
    }
    for (int k = bounds_h[i].lo; k < bounds_h[i].hi; ++k) m += w_h[size_t(k)];
    d += vel_h[i].z;
    m = m * bounds_h[i].scale + double(bounds_h[i].hi - bounds_h[i].lo);
    if (!close(force_h[i], f) || !close(drift_h[i], d) || !close(mass_h[i], m)) {
      std::fprintf(stderr, "FAIL: row %zu: force %g, drift %g, mass %g; the serial reference gives %g, %g, %g\n", i,
                   double(force_h[i]), double(drift_h[i]), double(mass_h[i]), f, d, m);
      return 1;
    }
  }
  loops::ResultFile res(args);
  res.add(force_h);
  res.add(drift_h);
  res.add(mass_h);
  return 0;
}
