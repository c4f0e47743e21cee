// lud_perimeter-style kernel, cuda-np.md Figure 3: 16 threads per block, a
// parallel loop that fills shared-memory tiles, a barrier, then every thread
// combines a column of the tiles (sequential section).
#include "loops_harness.cuh"

#define BLOCK_SIZE 16

__global__ void lud_perimeter(float *m, float *out, int matrix_dim, int offset) {
  __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];
  int i;
  int idx = threadIdx.x;
  int array_offset;
  array_offset = offset * matrix_dim + offset;
#pragma np parallel for
  for (i = 0; i < BLOCK_SIZE; i++)
    peri_row[i][idx] = m[array_offset + (blockIdx.x + 1) * BLOCK_SIZE + matrix_dim * i + idx];
#pragma np parallel for
  for (i = 0; i < BLOCK_SIZE; i++)
    peri_col[idx][i] = m[array_offset + (blockIdx.x + 1) * BLOCK_SIZE * matrix_dim + matrix_dim * idx + i];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < BLOCK_SIZE; k++) acc += peri_row[k][idx] * peri_col[idx][k];
  out[blockIdx.x * BLOCK_SIZE + idx] = acc + (float)threadIdx.x;
}

int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int dim = int(args.get("dim", 512)), offset = int(args.get("offset", 16));
  const int blocks = (dim - offset) / BLOCK_SIZE - 2;
  if (blocks <= 0) { std::fprintf(stderr, "dim too small\n"); return 2; }
  float *m = loops::to_device(loops::random_floats(size_t(dim) * dim, 6));
  float *out = loops::device_zeros<float>(size_t(blocks) * BLOCK_SIZE);
  loops::timed(args, 4.0 * blocks * (2.0 * BLOCK_SIZE * BLOCK_SIZE + BLOCK_SIZE), [&] { lud_perimeter<<<blocks, BLOCK_SIZE>>>(m, out, dim, offset); });
  loops::ResultFile res(args);
  res.add(loops::from_device(out, size_t(blocks) * BLOCK_SIZE));
  return 0;
}
