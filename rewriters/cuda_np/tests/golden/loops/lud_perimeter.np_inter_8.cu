// lud_perimeter-style kernel, cuda-np.md Figure 3: 16 threads per block, a
// parallel loop that fills shared-memory tiles, a barrier, then every thread
// combines a column of the tiles (sequential section).
#include "loops_harness.cuh"
#include <nestor/np.cuh>

#define BLOCK_SIZE 16

__global__ void lud_perimeter(float *m, float *out, int matrix_dim, int offset) {
  // CUDA-NP: 8 slaves, inter-warp: block (16, 8), master = threadIdx.x, slave = threadIdx.y ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::inter<16, 8>;
  const dim3 nestor_blockDim(16, 1, 1);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];
  int i;
  int idx = nestor_threadIdx.x;
  int array_offset;
  array_offset = offset * matrix_dim + offset;
// (was: #pragma np parallel for)
  // CUDA-NP: 8 slaves, inter-warp: iterations spread over the master and its slaves
  {
  for (i = (0) + nestor_np_group::slave_id(); i < BLOCK_SIZE; i += nestor_np_group::slave_size)
    peri_row[i][idx] = m[array_offset + (blockIdx.x + 1) * BLOCK_SIZE + matrix_dim * i + idx];
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
// (was: #pragma np parallel for)
  // CUDA-NP: 8 slaves, inter-warp: iterations spread over the master and its slaves
  {
  for (i = (0) + nestor_np_group::slave_id(); i < BLOCK_SIZE; i += nestor_np_group::slave_size)
    peri_col[idx][i] = m[array_offset + (blockIdx.x + 1) * BLOCK_SIZE * matrix_dim + matrix_dim * idx + i];
  }
  nestor_np_group::sync(); // the masters read what the slaves wrote
  __syncthreads();
  float acc = 0.0f;
  if (nestor_np_group::is_master()) { for (int k = 0; k < BLOCK_SIZE; k++) acc += peri_row[k][idx] * peri_col[idx][k]; }
  if (nestor_np_group::is_master()) { out[blockIdx.x * BLOCK_SIZE + idx] = acc + (float)nestor_threadIdx.x; }
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int dim = int(args.get("dim", 512)), offset = int(args.get("offset", 16));
  const int blocks = (dim - offset) / BLOCK_SIZE - 2;
  if (blocks <= 0) { std::fprintf(stderr, "dim too small\n"); return 2; }
  float *m = loops::to_device(loops::random_floats(size_t(dim) * dim, 6));
  float *out = loops::device_zeros<float>(size_t(blocks) * BLOCK_SIZE);
  loops::timed(args, 4.0 * blocks * (2.0 * BLOCK_SIZE * BLOCK_SIZE + BLOCK_SIZE), [&] { lud_perimeter<<<blocks, nestor::np::block_as_analysed<((BLOCK_SIZE) == 16)>(dim3(16, 8, 1)) /* CUDA-NP: 8 slaves, inter-warp, was BLOCK_SIZE */>>>(m, out, dim, offset); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(blocks) * BLOCK_SIZE));
  return 0;
}
