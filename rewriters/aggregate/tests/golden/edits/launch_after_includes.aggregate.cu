#include <cuda_runtime.h>
#include <nestor/dp.cuh>
__global__ void add_one(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1.0f;
}

// One launch of add_one, recorded for aggregation (Nestor aggregate rewrite).
struct add_one__agg_args {
  float *v;
  int n;
};

// add_one for aggregated launches: each block finds the launch it belongs to; threads
// beyond that launch's block (the aggregated block is the largest) skip the body.
__global__ void add_one__agg(nestor::dp::agg_batch<add_one__agg_args> _batch) {
  const nestor::dp::agg_child<add_one__agg_args> _c = nestor::dp::agg_child_locate(_batch);
  if (_c.active) {
    auto v = _c.args->v;
    auto n = _c.args->n;
    {
      int i = _c.blockIdx.x * _c.blockDim.x + _c.threadIdx.x;
      if (i < n) v[i] += 1.0f;
    }
  }
}

// Launch records of add_one, reset by the host before every launch of rows_parent.
__device__ nestor::dp::agg_pool<add_one__agg_args> add_one__agg_pool;
static nestor::dp::agg_pool<add_one__agg_args> add_one__agg_pool_host() {
  static nestor::dp::agg_pool_owner<add_one__agg_args> owner;
  if (!owner.pool().counters) {
    nestor::dp::agg_host_check(owner.create(), "add_one__agg_pool: allocation");
    nestor::dp::agg_host_check(cudaMemcpyToSymbol(add_one__agg_pool, &owner.pool(), sizeof(owner.pool())), "add_one__agg_pool: cudaMemcpyToSymbol");
  }
  return owner.pool();
}

// A child kernel directly after the #include line (issue #21): the runtime
// include and the code every DP rewrite and launch template puts before or
// after the child share an offset. Every offered rewrite applies
// (tests/rewrite/edits.cmake).
__global__ void rows_parent(float *v, const int *offsets, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int len = offsets[r + 1] - offsets[r];
    if (len > 0) {
      const dim3 _agg_grid((len + 127) / 128), _agg_block(128);
      add_one__agg_args _agg_args;
      _agg_args.v = v + offsets[r];
      _agg_args.n = len;
      if (!nestor::dp::aggregate_warp(add_one__agg_pool, add_one__agg, _agg_grid, _agg_block, _agg_args)) {
        // refused (pool full, launch too large): the original launch
        add_one<<<_agg_grid, _agg_block>>>(_agg_args.v, _agg_args.n);
      }
    }
  }
}

void run(float *v, const int *offsets, int rows) {
  {
    const nestor::dp::agg_pool<add_one__agg_args> _agg_pool = add_one__agg_pool_host();
    nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool), "add_one__agg_pool: reset");
    rows_parent<<<(rows + 255) / 256, 256>>>(v, offsets, rows);
  }
  cudaDeviceSynchronize();
}
