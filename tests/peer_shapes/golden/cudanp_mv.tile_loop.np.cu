// peer-shape: cuda-np MV, matrix-vector multiplication
//
// Dense matrix-vector multiplication in the shape of CUDA-NP's MV benchmark
// (Yang and Zhou, "CUDA-NP", Table 1: one parallel loop, loop count 32, a
// reduction, heavy shared-memory use): one thread per row; the block stages
// 32 entries of the vector in shared memory, every thread then runs the
// 32-iteration dot-product loop over that tile, between two barriers. This is
// also the sumRows shape of the locality-aware mapping paper (threads over
// rows, an inner loop over a row's contiguous elements). Written here, in
// that style. Matrix and vector hold small non-negative integers, so every
// float sum is exact whatever order a rewrite adds in; the program checks the
// result against a serial product.
//
// Arguments: --vertices H (rows), --degree W (columns, rounded up to a
// multiple of 32), --seed, --reps, --out (examples/graph/graph.h's names).
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I examples/graph -I tests/peer_shapes cudanp_mv.cu
#include "peer_shapes.h"
#include <nestor/np.cuh>

#define MV_TILE 32
#define MV_BLOCK 128

__global__ void mv(const float *a, const float *x, float *y, int h, int w) {
  // CUDA-NP: 4 slaves, inter-warp: block (128, 4), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<128, 4>;
  const dim3 nestor_blockDim(128, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  __shared__ float xs[MV_TILE];
  int row = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  float sum = 0;
  for (int t = 0; t < w; t += MV_TILE) {
    if (nestor_np_group::is_master()) { if (nestor_threadIdx.x < MV_TILE) xs[nestor_threadIdx.x] = x[t + nestor_threadIdx.x]; }
    __syncthreads();
    { // was: if (row < h): inter-warp NP predicates the branch (every thread reaches the group barriers)
    const bool nestor_if_0 = bool(row < h);
    // CUDA-NP: 4 slaves, inter-warp: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:sum))
      {
        const float nestor_sum_in = sum;
        sum = nestor::op::add::identity<float>(); // this thread's partial
      for (int k = (0) + nestor_np_group::slave_id(); nestor_if_0 && (k < MV_TILE); k += nestor_np_group::slave_size) // peer-site: tile_loop
        sum += a[row * w + t + k] * xs[k];
        sum = nestor::op::add{}(nestor_sum_in, nestor_np_group::reduce<nestor::op::add>(sum)); // reduction(+:sum) (3.2)
      }
    }
    __syncthreads();
  }
  if (nestor_np_group::is_master()) { if (row < h) y[row] = sum; }
}

int main(int argc, char **argv) {
  graph::options opt;
  try {
    opt = graph::parse_options(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "cudanp_mv: %s\n%s  --vertices H: rows; --degree W: columns\n", e.what(), graph::usage());
    return 2;
  }
  const int h = int(opt.vertices);
  const int w = int((opt.degree + MV_TILE - 1) / MV_TILE * MV_TILE) + (opt.degree == 0 ? MV_TILE : 0);
  graph::rng r(opt.seed);
  std::vector<float> a(size_t(h) * w), x(w);
  for (float &v : a) v = float(r.below(7));
  for (float &v : x) v = float(r.below(5));
  float *d_a = peer::to_device(a), *d_x = peer::to_device(x);
  float *d_y = peer::to_device(std::vector<float>(h, 0.f));
  const double ms = peer::timed(
      opt.reps, [&] { PEER_CHECK(cudaMemset(d_y, 0, h * sizeof(float))); },
      [&] { mv<<<(h + MV_BLOCK - 1) / MV_BLOCK, nestor::np::block_as_analysed<((MV_BLOCK) == 128)>(dim3(128, 4, 1)) /* CUDA-NP: 4 slaves, inter-warp, was MV_BLOCK */>>>(d_a, d_x, d_y, h, w); });
  const std::vector<float> y = peer::from_device(d_y, size_t(h));
  std::vector<float> expect(h);
  for (int row = 0; row < h; ++row) {
    double sum = 0;
    for (int k = 0; k < w; ++k) sum += double(a[size_t(row) * w + k]) * x[k];
    expect[row] = float(sum);
  }
  if (!peer::matches("cudanp_mv", y, expect)) return 1;
  // Exact integers: written as such.
  std::vector<unsigned long long> result(y.begin(), y.end());
  graph::csr shape;  // for the RESULT line: rows as vertices, entries as edges
  shape.vertices = unsigned(h);
  shape.targets.resize(size_t(h) * w);
  return peer::finish("cudanp_mv", opt, shape, ms, result);
}
