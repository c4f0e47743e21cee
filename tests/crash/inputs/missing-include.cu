#include <cuda/pipeline>
#include "does_not_exist.cuh"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
template <int BLOCK>
__global__ void copy(float *out, const float *in) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  __shared__ alignas(alignof(float4)) float As[2][BLOCK][BLOCK];
  auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state);
  for (int i = 0; i < BLOCK; ++i) out[i] = As[0][threadIdx.y][i];
}
