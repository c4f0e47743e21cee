// Soundness suite: collective operations inside loops. A loop holding one is
// never given to other threads, whatever its memory does. Ground truth per
// loop on its header line; see scalars.cu.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cuda_pipeline.h>
#include <mma.h>

#include "loops_harness.cuh"

namespace cg = cooperative_groups;
using namespace nvcuda;

#define N 64

__global__ void wmma_tiles(const half *a, const half *b, float *c, int k) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int t = 0; t < k; t += 16) { // truth: collective
    wmma::load_matrix_sync(fa, a + t, k);
    wmma::load_matrix_sync(fb, b + t, k);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

__global__ void wmma_fragment_elements(float *out) {
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 1.0f);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = acc.x[i] * 2.0f; // truth: collective
  wmma::store_matrix_sync(out, acc, 16, wmma::mem_row_major);
}

__global__ void shuffle_sum(const float *in, float *out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset); // truth: collective
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__global__ void shuffle_map(const float *in, float *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = __shfl_xor_sync(0xffffffffu, in[row * N + i], 1); // truth: collective
}

__global__ void warp_sync_loop(float *data) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) { // truth: collective
    data[row * N + i] *= 2.0f;
    __syncwarp();
  }
}

__global__ void ballot_loop(const int *in, unsigned *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = __ballot_sync(0xffffffffu, in[row * N + i] > 0); // truth: collective
}

__global__ void active_mask_loop(unsigned *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = __activemask(); // truth: collective
}

__global__ void block_barrier_loop(const float *in, float *out) {
  __shared__ float buf[256];
  for (int i = 0; i < N; ++i) { // truth: collective
    buf[threadIdx.x] = in[i * 256 + threadIdx.x];
    __syncthreads();
    out[i * 256 + threadIdx.x] = buf[(threadIdx.x + 1) % 256];
    __syncthreads();
  }
}

__global__ void tile_shuffle(const float *in, float *out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = tile.shfl(in[row * N + i], 0); // truth: collective
}

__global__ void tile_reduce(const float *in, float *out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = cg::reduce(tile, in[row * N + i], cg::plus<float>()); // truth: collective
}

__global__ void tile_rank_only(const float *in, float *out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = in[row * N + i] * (float)tile.thread_rank(); // truth: independent
}

__global__ void block_sync_cg(float *data) {
  cg::thread_block block = cg::this_thread_block();
  for (int i = 0; i < N; ++i) { // truth: collective
    data[i * 256 + threadIdx.x] += 1.0f;
    block.sync();
  }
}

__global__ void pipeline_copy(const float *in, float *out) {
  __shared__ float stage[N * 128];
  for (int i = 0; i < N; ++i) { // truth: collective
    __pipeline_memcpy_async(&stage[i * 128 + threadIdx.x], &in[blockIdx.x * N * 128 + i * 128 + threadIdx.x],
                            sizeof(float));
    __pipeline_commit();
  }
  __pipeline_wait_prior(0);
  out[blockIdx.x * 128 + threadIdx.x] = stage[threadIdx.x];
}

__global__ void cg_memcpy_async(const float *in, float *out) {
  __shared__ float stage[256];
  cg::thread_block block = cg::this_thread_block();
  for (int i = 0; i < 4; ++i) { // truth: collective
    cg::memcpy_async(block, stage, in + i * 256, sizeof(float) * 256);
    cg::wait(block);
    out[i * 256 + threadIdx.x] = stage[threadIdx.x];
  }
}

__global__ void named_barrier_asm(float *data) {
  for (int i = 0; i < N; ++i) { // truth: collective
    data[i * 64 + threadIdx.x] += 1.0f;
    asm volatile("bar.sync 1, 64;");
  }
}

__global__ void lane_id_loop(int *out) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < N; ++i) out[row * N + i] = __match_any_sync(0xffffffffu, i); // truth: collective
}

// The independent kernel on deterministic inputs (tests/soundness/gpu).
int main(int argc, char **argv) {
  nestor::test::require_gpu_or_skip();
  loops::Args args(argc, argv);
  const int blocks = int(args.get("blocks", 2)), rows = blocks * 64;
  const size_t cells = size_t(rows) * N;
  float *in = loops::to_device(loops::random_floats(cells, 31));
  float *out = loops::device_zeros<float>(cells);
  loops::ResultFile file(args);
  tile_rank_only<<<blocks, 64>>>(in, out);
  file.add(loops::from_device(out, cells));
  return 0;
}
