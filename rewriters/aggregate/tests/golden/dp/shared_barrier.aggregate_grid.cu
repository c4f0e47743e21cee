#include <nestor/dp.cuh>

// A child that uses __shared__ and __syncthreads: not serialisable (threshold
// refuses); aggregated with its constant block, every barrier is reached by
// whole blocks; coarsening keeps the barriers legal and separates the
// coarsened blocks with one.
__global__ void tile_sum(const float* in, float* out, unsigned n) {
  __shared__ float tile[128];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (unsigned k = 0; k < blockDim.x; ++k) s += tile[k];
    atomicAdd(out, s);
  }
}

// One launch of tile_sum, recorded for aggregation (Nestor aggregate rewrite).
struct tile_sum__agg_args {
  const float *in;
  float *out;
  unsigned int n;
};

// tile_sum for aggregated launches: each block finds the launch it belongs to; threads
// beyond that launch's block (the aggregated block is the largest) skip the body.
__global__ void tile_sum__agg(nestor::dp::agg_batch<tile_sum__agg_args> _batch) {
  const nestor::dp::agg_child<tile_sum__agg_args> _c = nestor::dp::agg_child_locate(_batch);
  if (_c.active) {
    auto in = _c.args->in;
    auto out = _c.args->out;
    auto n = _c.args->n;
    {
      __shared__ float tile[128];
      unsigned i = _c.blockIdx.x * _c.blockDim.x + _c.threadIdx.x;
      tile[_c.threadIdx.x] = i < n ? in[i] : 0.0f;
      __syncthreads();
      if (_c.threadIdx.x == 0) {
        float s = 0;
        for (unsigned k = 0; k < _c.blockDim.x; ++k) s += tile[k];
        atomicAdd(out, s);
      }
    }
  }
}

// Launch records of tile_sum, reset by the host before every launch of rows_parent.
__device__ nestor::dp::agg_pool<tile_sum__agg_args> tile_sum__agg_pool;
static nestor::dp::agg_pool<tile_sum__agg_args> tile_sum__agg_pool_host() {
  static nestor::dp::agg_pool_owner<tile_sum__agg_args> owner;
  if (!owner.pool().counters) {
    nestor::dp::agg_host_check(owner.create(), "tile_sum__agg_pool: allocation");
    nestor::dp::agg_host_check(cudaMemcpyToSymbol(tile_sum__agg_pool, &owner.pool(), sizeof(owner.pool())), "tile_sum__agg_pool: cudaMemcpyToSymbol");
  }
  return owner.pool();
}

__global__ void rows_parent(const float* in, float* out, const unsigned* len, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && len[r] > 0) {
    const dim3 _agg_grid((len[r] + 127) / 128), _agg_block(128);
    tile_sum__agg_args _agg_args;
    _agg_args.in = in + r * 4096;
    _agg_args.out = out + r;
    _agg_args.n = len[r];
    if (!nestor::dp::aggregate_grid(tile_sum__agg_pool, _agg_grid, _agg_block, _agg_args)) {
      // refused (pool full, launch too large): the original launch
      tile_sum<<<_agg_grid, _agg_block>>>(_agg_args.in, _agg_args.out, _agg_args.n);
    }
  }
}

int main() {
  {
    const nestor::dp::agg_pool<tile_sum__agg_args> _agg_pool = tile_sum__agg_pool_host();
    nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool), "tile_sum__agg_pool: reset");
    rows_parent<<<1, 32>>>(nullptr, nullptr, nullptr, 0);
    // After the parent grid: one launch of every recorded tile_sum launch.
    nestor::dp::agg_grid_plan _agg_plan;
    nestor::dp::agg_host_check(nestor::dp::agg_grid_read_plan(_agg_pool, &_agg_plan), "tile_sum__agg_pool: read plan");
    nestor::dp::agg_host_check(nestor::dp::agg_grid_launch(_agg_pool, _agg_plan, tile_sum__agg, 0), "tile_sum__agg: launch");
  }
  return 0;
}
