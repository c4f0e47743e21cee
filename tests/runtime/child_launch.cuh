// The child "kernel" of the launch-template runtime tests (promote_test,
// delayed_launches_test): a parent thread per CSR row launches it over the
// row's entries; each child thread increments its entry once, so a schedule
// that drops or repeats a child thread shows in the counts.
#pragma once
#include <cuda_runtime.h>

#include <random>
#include <vector>

struct child_launch {
  unsigned *hits;
  unsigned first, count;
  dim3 nestor_grid, nestor_block;
};

// The child's body with its identity as parameters; 2D blocks linearised.
__device__ inline void child_thread(unsigned *hits, unsigned first, unsigned count, uint3 threadIdx, uint3 blockIdx,
                                    dim3 blockDim, dim3 gridDim) {
  const unsigned per_block = blockDim.x * blockDim.y;
  const unsigned i = (blockIdx.x + gridDim.x * blockIdx.y) * per_block + threadIdx.x + blockDim.x * threadIdx.y;
  if (i < count) atomicAdd(&hits[first + i], 1u);
}

// CSR offsets of `rows` parent rows: 15% empty, most short, a few of up to
// 3,500 entries (launches of several chunks of the block-mapped passes).
inline std::vector<unsigned> random_launch_offsets(unsigned rows, std::mt19937_64 &rng) {
  std::vector<unsigned> off{0};
  for (unsigned r = 0; r < rows; ++r) {
    const unsigned k = unsigned(rng() % 100);
    off.push_back(off.back() + (k < 15 ? 0u : k < 70 ? 1u + unsigned(rng() % 40) : k < 95 ? 40u + unsigned(rng() % 200) : 500u + unsigned(rng() % 3000)));
  }
  return off;
}
