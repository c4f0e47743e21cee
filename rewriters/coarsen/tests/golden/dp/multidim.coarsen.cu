// A 3-D child grid and block, a `return` in the child and a parameter the
// child modifies: the serial, coarsened and aggregated clones must keep the
// meaning of each (every child thread sees its own copy of `base`).
#include <cstdio>
#ifndef NESTOR_CFACTOR
#define NESTOR_CFACTOR 2
#endif
#include <nestor/dp.cuh>

__global__ void cube_child(int* out, unsigned nx, unsigned ny, unsigned nz, int _arg_base, dim3 _gDim) {
  // Coarsened by Nestor (strategy 1): each block runs NESTOR_CFACTOR original blocks per dimension.
  for (unsigned _bz = blockIdx.z; _bz < _gDim.z; _bz += gridDim.z) {
    for (unsigned _by = blockIdx.y; _by < _gDim.y; _by += gridDim.y) {
      for (unsigned _bx = blockIdx.x; _bx < _gDim.x; _bx += gridDim.x) {
        const dim3 _bIdx(_bx, _by, _bz);
        auto base = _arg_base;
        {
          unsigned x = _bIdx.x * blockDim.x + threadIdx.x;
          unsigned y = _bIdx.y * blockDim.y + threadIdx.y;
          unsigned z = _bIdx.z * blockDim.z + threadIdx.z;
          if (x >= nx || y >= ny || z >= nz) goto _nestor_next_block;
          base += static_cast<int>(_gDim.x + _gDim.y * 3 + _gDim.z * 5);
          atomicAdd(&out[(z * ny + y) * nx + x], base);
        }
        _nestor_next_block:;
      }
    }
  }
}

__global__ void cube_parent(int* out, const unsigned* sizes, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned s = sizes[i];
    if (s > 0)
      {
        const dim3 _gDim(dim3((s + 3) / 4, (s + 3) / 4, (s + 1) / 2));
        cube_child<<<nestor::dp::coarsen_xyz(_gDim, NESTOR_CFACTOR), dim3(4, 4, 2)>>>(out + i * 512, s, s, s, int(i), _gDim);
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
