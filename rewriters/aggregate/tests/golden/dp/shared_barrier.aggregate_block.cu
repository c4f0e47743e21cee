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
  // This thread's launch of tile_sum (Nestor aggregate rewrite, block granularity).
  bool _agg_tile_sum_want = false;
  dim3 _agg_tile_sum_grid, _agg_tile_sum_block;
  tile_sum__agg_args _agg_tile_sum_args{};
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && len[r] > 0) {
    _agg_tile_sum_grid = dim3((len[r] + 127) / 128);
    _agg_tile_sum_block = dim3(128);
    _agg_tile_sum_args.in = in + r * 4096;
    _agg_tile_sum_args.out = out + r;
    _agg_tile_sum_args.n = len[r];
    _agg_tile_sum_want = true;  // launched at the end of rows_parent, aggregated per block
  }
  // Every thread of the block gets here: one launch for the block's launches.
  if (!nestor::dp::aggregate_block(tile_sum__agg_pool, tile_sum__agg, _agg_tile_sum_want, _agg_tile_sum_grid, _agg_tile_sum_block, _agg_tile_sum_args)) {
    tile_sum<<<_agg_tile_sum_grid, _agg_tile_sum_block>>>(_agg_tile_sum_args.in, _agg_tile_sum_args.out, _agg_tile_sum_args.n);
  }
}

int main() {
  {
    const nestor::dp::agg_pool<tile_sum__agg_args> _agg_pool = tile_sum__agg_pool_host();
    nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool), "tile_sum__agg_pool: reset");
    rows_parent<<<1, 32>>>(nullptr, nullptr, nullptr, 0);
  }
  return 0;
}
