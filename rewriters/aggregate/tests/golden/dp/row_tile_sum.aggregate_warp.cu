// A runnable CDP program whose child uses __shared__ memory and __syncthreads:
// one child grid per row sums the row block by block. The launch block is a
// constant, so aggregation keeps every barrier reached by whole blocks; the
// GPU equivalence test (tests/gpu) runs it against its aggregated goldens.
//   row_tile_sum --rows N --seed S --out FILE
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include <nestor/dp.cuh>

__global__ void tile_sum(const int *in, unsigned long long *out, unsigned n) {
  __shared__ int tile[128];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) tile[threadIdx.x] += tile[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, (unsigned long long)tile[0]);
}

// One launch of tile_sum, recorded for aggregation (Nestor aggregate rewrite).
struct tile_sum__agg_args {
  const int *in;
  unsigned long long *out;
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
      __shared__ int tile[128];
      unsigned i = _c.blockIdx.x * _c.blockDim.x + _c.threadIdx.x;
      tile[_c.threadIdx.x] = i < n ? in[i] : 0;
      __syncthreads();
      for (unsigned stride = _c.blockDim.x / 2; stride > 0; stride /= 2) {
        if (_c.threadIdx.x < stride) tile[_c.threadIdx.x] += tile[_c.threadIdx.x + stride];
        __syncthreads();
      }
      if (_c.threadIdx.x == 0) atomicAdd(out, (unsigned long long)tile[0]);
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

__global__ void rows_parent(const int *in, unsigned long long *out, const unsigned *offsets, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    unsigned len = offsets[r + 1] - offsets[r];
    if (len > 0) {
      const dim3 _agg_grid((len + 127) / 128), _agg_block(128);
      tile_sum__agg_args _agg_args;
      _agg_args.in = in + offsets[r];
      _agg_args.out = out + r;
      _agg_args.n = len;
      if (!nestor::dp::aggregate_warp(tile_sum__agg_pool, tile_sum__agg, _agg_grid, _agg_block, _agg_args)) {
        // refused (pool full, launch too large): the original launch
        tile_sum<<<_agg_grid, _agg_block>>>(_agg_args.in, _agg_args.out, _agg_args.n);
      }
    }
  }
}

int main(int argc, char **argv) {
  unsigned rows = 3000, seed = 1;
  const char *outPath = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--rows")) rows = unsigned(atoi(argv[i + 1]));
    else if (!strcmp(argv[i], "--seed")) seed = unsigned(atoi(argv[i + 1]));
    else if (!strcmp(argv[i], "--out")) outPath = argv[i + 1];
  }
  if (!outPath) {
    fprintf(stderr, "usage: row_tile_sum --rows N --seed S --out FILE\n");
    return 2;
  }
  // Row lengths from 0 to ~600 (some rows need several child blocks), skewed.
  std::vector<unsigned> offsets(rows + 1, 0);
  unsigned state = seed * 2654435761u + 1;
  for (unsigned r = 0; r < rows; ++r) {
    state = state * 1664525u + 1013904223u;
    unsigned len = (state >> 8) % 7 == 0 ? (state >> 12) % 600 : (state >> 12) % 40;
    if (r % 11 == 5) len = 0;
    offsets[r + 1] = offsets[r] + len;
  }
  std::vector<int> values(offsets[rows]);
  for (size_t i = 0; i < values.size(); ++i) values[i] = int((i * 2654435761u) % 1000) - 500;
  // One pending device launch per row at most: without room for them, CDP2
  // drops launches (cudaErrorLaunchPendingCountExceeded) and rows stay 0.
  if (cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, rows + 4096) != cudaSuccess) {
    fprintf(stderr, "cannot raise the pending launch count\n");
    return 1;
  }
  int *dIn = nullptr;
  unsigned *dOff = nullptr;
  unsigned long long *dOut = nullptr;
  cudaMalloc(&dIn, (values.size() + 1) * sizeof(int));
  cudaMalloc(&dOff, offsets.size() * sizeof(unsigned));
  cudaMalloc(&dOut, rows * sizeof(unsigned long long));
  cudaMemcpy(dIn, values.data(), values.size() * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(dOff, offsets.data(), offsets.size() * sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemset(dOut, 0, rows * sizeof(unsigned long long));
  {
    const nestor::dp::agg_pool<tile_sum__agg_args> _agg_pool = tile_sum__agg_pool_host();
    nestor::dp::agg_host_check(nestor::dp::agg_pool_reset(_agg_pool), "tile_sum__agg_pool: reset");
    rows_parent<<<(rows + 127) / 128, 128>>>(dIn, dOut, dOff, rows);
  }
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  std::vector<unsigned long long> out(rows);
  cudaMemcpy(out.data(), dOut, rows * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  FILE *f = fopen(outPath, "w");
  if (!f) return 1;
  for (unsigned r = 0; r < rows; ++r) fprintf(f, "%u %lld\n", r, (long long)out[r]);
  fclose(f);
  cudaFree(dIn);
  cudaFree(dOff);
  cudaFree(dOut);
  return 0;
}
