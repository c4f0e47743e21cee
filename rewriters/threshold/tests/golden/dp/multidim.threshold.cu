// A 3-D child grid and block, a `return` in the child and a parameter the
// child modifies: the serial, coarsened and aggregated clones must keep the
// meaning of each (every child thread sees its own copy of `base`).
#include <cstdio>
#ifndef NESTOR_THRESHOLD
#define NESTOR_THRESHOLD 512
#endif
#include <nestor/dp.cuh>

__global__ void cube_child(int* out, unsigned nx, unsigned ny, unsigned nz, int base) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  base += static_cast<int>(gridDim.x + gridDim.y * 3 + gridDim.z * 5);
  atomicAdd(&out[(z * ny + y) * nx + x], base);
}

// Serial form of cube_child (Nestor threshold rewrite): runs every thread of a
// <<<_gDim, _bDim>>> launch in the calling thread; `return` ends one child thread.
__device__ void cube_child__serial(int* out, unsigned nx, unsigned ny, unsigned nz, int _arg_base, dim3 _gDim, dim3 _bDim) {
  nestor::dp::serial_for_each(_gDim, _bDim, [&](const nestor::dp::serial_ctx& _ctx) {
    auto base = _arg_base;
    unsigned x = _ctx.blockIdx.x * _ctx.blockDim.x + _ctx.threadIdx.x;
    unsigned y = _ctx.blockIdx.y * _ctx.blockDim.y + _ctx.threadIdx.y;
    unsigned z = _ctx.blockIdx.z * _ctx.blockDim.z + _ctx.threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    base += static_cast<int>(_ctx.gridDim.x + _ctx.gridDim.y * 3 + _ctx.gridDim.z * 5);
    atomicAdd(&out[(z * ny + y) * nx + x], base);
  });
}

__global__ void cube_parent(int* out, const unsigned* sizes, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned s = sizes[i];
    if (s > 0)
      {
        const auto __threads = s * s * s;
        const dim3 _gDim(dim3((s + 3) / 4, (s + 3) / 4, (s + 1) / 2)), _bDim(dim3(4, 4, 2));
        if (__threads >= NESTOR_THRESHOLD) {
          cube_child<<<_gDim, _bDim>>>(out + i * 512, s, s, s, int(i));
        } else {
          cube_child__serial(out + i * 512, s, s, s, int(i), _gDim, _bDim);
        }
      }
  }
}

int main() {
  unsigned* sizes = nullptr;
  int* out = nullptr;
  cudaMalloc(&sizes, 8 * sizeof(unsigned));
  cudaMalloc(&out, 8 * 512 * sizeof(int));
  cube_parent<<<1, 8>>>(out, sizes, 8);
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
