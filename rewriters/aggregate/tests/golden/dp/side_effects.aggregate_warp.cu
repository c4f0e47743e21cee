#include <nestor/dp.cuh>

// Launch configuration and arguments with side effects: each must still be
// evaluated exactly once after a rewrite. The child launch sits in a loop.
__device__ unsigned next_chunk(unsigned* cursor, unsigned size) { return atomicAdd(cursor, size); }

__global__ void scale(float* a, unsigned first, unsigned count, float f) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) a[first + i] *= f;
}

// One launch of scale, recorded for aggregation (Nestor aggregate rewrite).
struct scale__agg_args {
  float *a;
  unsigned int first;
  unsigned int count;
  float f;
};

// scale for aggregated launches: each block finds the launch it belongs to; threads
// beyond that launch's block (the aggregated block is the largest) skip the body.
__global__ void scale__agg(nestor::dp::agg_batch<scale__agg_args> _batch) {
  const nestor::dp::agg_child<scale__agg_args> _c = nestor::dp::agg_child_locate(_batch);
  if (_c.active) {
    auto a = _c.args->a;
    auto first = _c.args->first;
    auto count = _c.args->count;
    auto f = _c.args->f;
    {
      unsigned i = _c.blockIdx.x * _c.blockDim.x + _c.threadIdx.x;
      if (i < count) a[first + i] *= f;
    }
  }
}

// Launch records of scale, reset by the host before every launch of chunks_parent.
__device__ nestor::dp::agg_pool<scale__agg_args> scale__agg_pool;
static nestor::dp::agg_pool<scale__agg_args> scale__agg_pool_host() {
  static nestor::dp::agg_pool_owner<scale__agg_args> owner;
  if (!owner.pool().counters) {
    nestor::dp::agg_host_check(owner.create(), "scale__agg_pool: allocation");
    nestor::dp::agg_host_check(cudaMemcpyToSymbol(scale__agg_pool, &owner.pool(), sizeof(owner.pool())), "scale__agg_pool: cudaMemcpyToSymbol");
  }
  return owner.pool();
}

__global__ void chunks_parent(float* a, unsigned* cursor, unsigned total, unsigned chunk) {
  unsigned taken = 0;
  for (int k = 0; k < 4; ++k) {
    unsigned count = chunk + threadIdx.x % 7;
    {
      const dim3 _agg_grid((count + 63) / 64), _agg_block(64);
      scale__agg_args _agg_args;
      _agg_args.a = a;
      _agg_args.first = next_chunk(cursor, count);
      _agg_args.count = count;
      _agg_args.f = 1.0f + taken++;
      if (!nestor::dp::aggregate_warp(scale__agg_pool, scale__agg, _agg_grid, _agg_block, _agg_args)) {
        // refused (pool full, launch too large): the original launch
        scale<<<_agg_grid, _agg_block>>>(_agg_args.a, _agg_args.first, _agg_args.count, _agg_args.f);
      }
    }
  }
}

int main() {
  {
    const nestor::dp::agg_pool<scale__agg_args> _agg_pool = scale__agg_pool_host();
    nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool), "scale__agg_pool: reset");
    chunks_parent<<<2, 64>>>(nullptr, nullptr, 0, 16);
  }
  return 0;
}
