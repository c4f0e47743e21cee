#include <nestor/dp.cuh>

// Launch configuration and arguments with side effects: each must still be
// evaluated exactly once after a rewrite. The child launch sits in a loop.
__device__ unsigned next_chunk(unsigned* cursor, unsigned size) { return atomicAdd(cursor, size); }

__global__ void scale(float* a, unsigned first, unsigned count, float f) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) a[first + i] *= f;
}

// Serial form of scale (Nestor threshold rewrite): runs every thread of a
// <<<_gDim, _bDim>>> launch in the calling thread; `return` ends one child thread.
__device__ void scale__serial(float* a, unsigned first, unsigned count, float f, dim3 _gDim, dim3 _bDim) {
  nestor::dp::serial_for_each(_gDim, _bDim, [&](const nestor::dp::serial_ctx& _ctx) {
    unsigned i = _ctx.blockIdx.x * _ctx.blockDim.x + _ctx.threadIdx.x;
    if (i < count) a[first + i] *= f;
  });
}

__global__ void chunks_parent(float* a, unsigned* cursor, unsigned total, unsigned chunk) {
  unsigned taken = 0;
  for (int k = 0; k < 4; ++k) {
    unsigned count = chunk + threadIdx.x % 7;
    {
      const auto __threads = count;
      const dim3 _gDim((__threads + 63) / 64), _bDim(64);
      if (__threads >= NESTOR_THRESHOLD) {
        scale<<<_gDim, _bDim>>>(a, next_chunk(cursor, count), count, 1.0f + taken++);
      } else {
        scale__serial(a, next_chunk(cursor, count), count, 1.0f + taken++, _gDim, _bDim);
      }
    }
  }
}

int main() {
  chunks_parent<<<2, 64>>>(nullptr, nullptr, 0, 16);
  return 0;
}
