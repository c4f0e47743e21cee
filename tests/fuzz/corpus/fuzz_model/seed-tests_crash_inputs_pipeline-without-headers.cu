// Like NVIDIA's globalToShmemAsyncCopy.cu opened without its include paths:
// the pipeline types are unknown, the shared state incomplete.
namespace cuda { template <int S, int N> struct pipeline_shared_state; enum thread_scope { thread_scope_block }; }
template <int BLOCK_SIZE>
__global__ void MatrixMulAsyncCopy(float *C, float *A, float *B, int wA, int wB) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 4> shared_state;
  __shared__ alignas(alignof(float4)) float As[4][BLOCK_SIZE][BLOCK_SIZE];
  float Csub = 0.0;
  for (int a = 0; a < wA; a += BLOCK_SIZE) {
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[0][threadIdx.y][k];
  }
  C[threadIdx.x] = Csub;
}
__global__ void plain(float *C) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 4> state;
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 4> states[2];
}
