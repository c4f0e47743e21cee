// Degree gather over a CSR graph: for each vertex, the largest degree among
// its neighbours (a max reduction over an irregular, data-dependent range).
#include "loops_harness.cuh"
#include <nestor/np.cuh>

__global__ void max_neighbour_degree(const int *offsets, const int *adj, int *best_out, int vertices) {
  // Sub-warp decomposition, width 8: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  int v = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (v >= vertices) return;
  int best = 0;
  // Sub-warp decomposition, width 8: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(max:best))
  best = nestor::subwarp::for_each_index<8>(offsets[v], offsets[v + 1], [=](int e) { return offsets[adj[e] + 1] - offsets[adj[e]]; }, nestor::op::max{}, best);
  if (nestor_np_group::is_master()) { best_out[v] = best; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int n = int(args.get("rows", 20000)), avg = int(args.get("avg", 12));
  const bool powerlaw = args.str("graph", "powerlaw") == "powerlaw";
  loops::Csr g = loops::make_csr(n, n, avg, powerlaw, unsigned(args.get("seed", 9)));
  int *off = loops::to_device(g.rowptr), *adj = loops::to_device(g.col);
  int *out = loops::device_zeros<int>(size_t(n));
  loops::timed(args, 12.0 * g.col.size() + 12.0 * n, [&] { max_neighbour_degree<<<(n + 127) / 128, dim3(1024, 1, 1) /* Sub-warp decomposition, width 8, was 128 */>>>(off, adj, out, n); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(n)));
  return 0;
}
