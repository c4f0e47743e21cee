#pragma once
namespace cooperative_groups {
struct thread_group { __device__ void sync() const; __device__ unsigned size() const; __device__ unsigned thread_rank() const; };
struct thread_block : thread_group { __device__ dim3 group_index() const; __device__ dim3 thread_index() const; };
struct grid_group : thread_group { __device__ bool is_valid() const; };
template <unsigned N> struct thread_block_tile : thread_group {
  template <class T> __device__ T shfl_down(T v, unsigned d) const;
  template <class T> __device__ T shfl(T v, int src) const;
  __device__ unsigned meta_group_rank() const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
template <unsigned N> __device__ thread_block_tile<N> tiled_partition(const thread_block &);
__device__ void sync(const thread_group &);
}
