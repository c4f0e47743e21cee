// A 3-D child grid and block, a `return` in the child and a parameter the
// child modifies: the serial, coarsened and aggregated clones must keep the
// meaning of each (every child thread sees its own copy of `base`).
#include <cstdio>
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

// One launch of cube_child, recorded for aggregation (Nestor aggregate rewrite).
struct cube_child__agg_args {
  int *out;
  unsigned int nx;
  unsigned int ny;
  unsigned int nz;
  int _arg_base;
  dim3 _gDim;
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
    auto _arg_base = _c.args->_arg_base;
    auto _gDim = _c.args->_gDim;
    {
      // Coarsened by Nestor (strategy 1): each block runs NESTOR_CFACTOR original blocks per dimension.
      for (unsigned _bz = _c.blockIdx.z; _bz < _gDim.z; _bz += _c.gridDim.z) {
        for (unsigned _by = _c.blockIdx.y; _by < _gDim.y; _by += _c.gridDim.y) {
          for (unsigned _bx = _c.blockIdx.x; _bx < _gDim.x; _bx += _c.gridDim.x) {
            const dim3 _bIdx(_bx, _by, _bz);
            auto base = _arg_base;
            {
              unsigned x = _bIdx.x * _c.blockDim.x + _c.threadIdx.x;
              unsigned y = _bIdx.y * _c.blockDim.y + _c.threadIdx.y;
              unsigned z = _bIdx.z * _c.blockDim.z + _c.threadIdx.z;
              if (x >= nx || y >= ny || z >= nz) goto _nestor_next_block;
              base += static_cast<int>(_gDim.x + _gDim.y * 3 + _gDim.z * 5);
              atomicAdd(&out[(z * ny + y) * nx + x], base);
            }
            _nestor_next_block:;
          }
        }
      }
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
          {
            const dim3 _agg_grid(nestor::dp::coarsen_xyz(_gDim, NESTOR_CFACTOR)), _agg_block(_bDim);
            cube_child__agg_args _agg_args;
            _agg_args.out = out + i * 512;
            _agg_args.nx = s;
            _agg_args.ny = s;
            _agg_args.nz = s;
            _agg_args._arg_base = int(i);
            _agg_args._gDim = _gDim;
            if (!nestor::dp::aggregate_warp(cube_child__agg_pool, cube_child__agg, _agg_grid, _agg_block, _agg_args)) {
              // refused (pool full, launch too large): the original launch
              cube_child<<<_agg_grid, _agg_block>>>(_agg_args.out, _agg_args.nx, _agg_args.ny, _agg_args.nz, _agg_args._arg_base, _agg_args._gDim);
            }
          }
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
  {
    const nestor::dp::agg_pool<cube_child__agg_args> _agg_pool = cube_child__agg_pool_host();
    nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool), "cube_child__agg_pool: reset");
    cube_parent<<<1, 8>>>(out, sizes, 8);
  }
  cudaDeviceSynchronize();
  std::printf("done\n");
  return 0;
}
