// A project header's index helper (rewriters/dp_common/tests/header_index_child.cu).
#pragma once

__device__ __forceinline__ unsigned child_thread() { return blockIdx.x * blockDim.x + threadIdx.x; }
