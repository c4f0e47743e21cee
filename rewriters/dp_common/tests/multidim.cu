// A 3-D child grid and block, a `return` in the child and a parameter the
// child modifies: the serial, coarsened and aggregated clones must keep the
// meaning of each (every child thread sees its own copy of `base`).
#include <cstdio>

__global__ void cube_child(int* out, unsigned nx, unsigned ny, unsigned nz, int base) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  base += static_cast<int>(gridDim.x + gridDim.y * 3 + gridDim.z * 5);
  atomicAdd(&out[(z * ny + y) * nx + x], base);
}

__global__ void cube_parent(int* out, const unsigned* sizes, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned s = sizes[i];
    if (s > 0)
      cube_child<<<dim3((s + 3) / 4, (s + 3) / 4, (s + 1) / 2), dim3(4, 4, 2)>>>(out + i * 512, s, s, s, int(i)); /*^*/
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
