// A 3-D child grid and block, a `return` in the child and a parameter the
// child modifies: the serial, coarsened and aggregated clones must keep the
// meaning of each (every child thread sees its own copy of `base`).
#include <cstdio>
#include <nestor/dp.cuh>

__global__ void cube_child(int* out, unsigned nx, unsigned ny, unsigned nz, int base) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  base += static_cast<int>(gridDim.x + gridDim.y * 3 + gridDim.z * 5);
  atomicAdd(&out[(z * ny + y) * nx + x], base);
}

// One launch of cube_child, recorded for aggregation (Nestor aggregate rewrite).
struct cube_child__agg_args {
  int *out;
  unsigned int nx;
  unsigned int ny;
  unsigned int nz;
  int base;
};

// cube_child for aggregated launches: each block finds the launch it belongs to; threads
// beyond that launch's block (the aggregated block is the largest) skip the body.
__global__ void cube_child__agg(nestor::dp::agg_batch<cube_child__agg_args> _batch) {
  const nestor::dp::agg_child<cube_child__agg_args> _c = nestor::dp::agg_child_locate(_batch);
  if (_c.active) {
    auto out = _c.args->out;
    auto nx = _c.args->nx;
    auto ny = _c.args->ny;
    auto nz = _c.args->nz;
    auto base = _c.args->base;
    {
      unsigned x = _c.blockIdx.x * _c.blockDim.x + _c.threadIdx.x;
      unsigned y = _c.blockIdx.y * _c.blockDim.y + _c.threadIdx.y;
      unsigned z = _c.blockIdx.z * _c.blockDim.z + _c.threadIdx.z;
      if (x >= nx || y >= ny || z >= nz) return;
      base += static_cast<int>(_c.gridDim.x + _c.gridDim.y * 3 + _c.gridDim.z * 5);
      atomicAdd(&out[(z * ny + y) * nx + x], base);
    }
  }
}

// Launch records of cube_child, reset by the host before every launch of cube_parent.
__device__ nestor::dp::agg_pool<cube_child__agg_args> cube_child__agg_pool;
static nestor::dp::agg_pool<cube_child__agg_args> cube_child__agg_pool_host() {
  static nestor::dp::agg_pool_owner<cube_child__agg_args> owner;
  if (!owner.pool().counters) {
    nestor::dp::agg_host_check(owner.create(), "cube_child__agg_pool: allocation");
    nestor::dp::agg_host_check(cudaMemcpyToSymbol(cube_child__agg_pool, &owner.pool(), sizeof(owner.pool())), "cube_child__agg_pool: cudaMemcpyToSymbol");
  }
  return owner.pool();
}

__global__ void cube_parent(int* out, const unsigned* sizes, unsigned n) {
  // This thread's launch of cube_child (Nestor aggregate rewrite, block granularity).
  bool _agg_cube_child_want = false;
  dim3 _agg_cube_child_grid, _agg_cube_child_block;
  cube_child__agg_args _agg_cube_child_args{};
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned s = sizes[i];
    if (s > 0)
      {
        _agg_cube_child_grid = dim3(dim3((s + 3) / 4, (s + 3) / 4, (s + 1) / 2));
        _agg_cube_child_block = dim3(dim3(4, 4, 2));
        _agg_cube_child_args.out = out + i * 512;
        _agg_cube_child_args.nx = s;
        _agg_cube_child_args.ny = s;
        _agg_cube_child_args.nz = s;
        _agg_cube_child_args.base = int(i);
        _agg_cube_child_want = true;  // launched at the end of cube_parent, aggregated per block
      }
  }
  // Every thread of the block gets here: one launch for the block's launches.
  if (!nestor::dp::aggregate_block(cube_child__agg_pool, cube_child__agg, _agg_cube_child_want, _agg_cube_child_grid, _agg_cube_child_block, _agg_cube_child_args)) {
    cube_child<<<_agg_cube_child_grid, _agg_cube_child_block>>>(_agg_cube_child_args.out, _agg_cube_child_args.nx, _agg_cube_child_args.ny, _agg_cube_child_args.nz, _agg_cube_child_args.base);
  }
}

int main() {
  unsigned* sizes = nullptr;
  int* out = nullptr;
  cudaMalloc(&sizes, 8 * sizeof(unsigned));
  cudaMalloc(&out, 8 * 512 * sizeof(int));
  {
    const nestor::dp::agg_pool<cube_child__agg_args> _agg_pool = cube_child__agg_pool_host();
    nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool), "cube_child__agg_pool: reset");
    cube_parent<<<1, 8>>>(out, sizes, 8);
  }
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
