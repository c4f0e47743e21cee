// Degree gather over a CSR graph: for each vertex, the largest degree among
// its neighbours (a max reduction over an irregular, data-dependent range).
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void max_neighbour_degree(const int *offsets, const int *adj, int *best_out, int vertices) {
  // CUDA-NP: 4 slaves, inter-warp: block (128, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<128, 4>;
  const dim3 nestor_blockDim(128, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  bool nestor_active = true; // false once the original thread would have returned
  int v = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  nestor_active = nestor_active && !(v >= vertices); // was: if (v >= vertices) return; (inter-warp NP keeps every thread for the block barriers)
  int best = 0;
  // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(max:best))
  {
    const int nestor_best_in = best;
    best = nestor::op::max::identity<int>(); // this thread's partial
  for (int e = (nestor_active ? (offsets[v]) : (int)0) + nestor_np_group::slave_id(); nestor_active && (e < offsets[v + 1]); e += nestor_np_group::slave_size) {
    int d = offsets[adj[e] + 1] - offsets[adj[e]];
    best = max(best, d);
  }
    best = nestor::op::max{}(nestor_best_in, nestor_np_group::reduce<nestor::op::max>(best)); // reduction(max:best) (3.2)
  }
  if ((nestor_active && nestor_np_group::is_master())) { best_out[v] = best; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 20000)), avg = int(args.get("avg", 12));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr g = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 9)));
  int *off = loops::to_device(g.rowptr), *adj = loops::to_device(g.col);
  int *out = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 12.0 * g.col.size() + 12.0 * n, [&] { max_neighbour_degree<<<(n + 127) / 128, dim3(128, 4, 1) /* CUDA-NP: 4 slaves, inter-warp, was 128 */>>>(off, adj, out, n); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
