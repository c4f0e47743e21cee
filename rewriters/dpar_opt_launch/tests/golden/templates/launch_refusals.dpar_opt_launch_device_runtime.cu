// Device launches that the launch templates refuse, each with the construct
// and its line (tests/rewrite/templates.cmake).
#include <cuda_runtime.h>
#include <nestor/delayed_launches.cuh>

// A child that needs a block of its own: __shared__ and a barrier.
__global__ void tile_child(const float *in, float *out, unsigned n) {
  __shared__ float tile[128];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}
__global__ void tile_parent(const unsigned *off, const float *in, float *out, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) tile_child<<<(off[r + 1] - off[r] + 127) / 128, 128>>>(in + off[r], out + off[r], off[r + 1] - off[r]);
}

__global__ void add_child(float *out, unsigned first, unsigned count) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[first + i] += 1.0f;
}

// add_child with its thread identity as parameters (dpar-opt-launch): run by the parent thread
// or by add_child_nestor_dpar for delayed launches.
__device__ __forceinline__ void add_child_nestor_thread(float *out, unsigned first, unsigned count, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[first + i] += 1.0f;
}

// A delayed launch of add_child: its arguments and configuration.
struct add_child_nestor_launch {
  float *out;
  unsigned first;
  unsigned count;
  dim3 nestor_grid, nestor_block;
};

// The child of dpar-opt ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): one launch per
// parent block; block k runs the block's delayed launch k, its threads striding over the child threads.
__global__ void add_child_nestor_dpar(nestor::tmpl::launch_batch<add_child_nestor_launch> nestor_batch) {
  nestor::tmpl::run_launch_batch(nestor_batch, [](const add_child_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    add_child_nestor_thread(a.out, a.first, a.count, t, b, bd, gd);
  });
}
// The launch sits in a loop: a thread would delay several launches.
__global__ void loop_parent(const unsigned *off, float *out, unsigned rows) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned k = 0; k < 2 && r < rows; ++k)
    add_child<<<(off[r + 1] - off[r] + 63) / 64, 64>>>(out, off[r], off[r + 1] - off[r]);
}
// The parent uses the device runtime elsewhere: -rdc would stay.
// The body of runtime_parent for dpar-opt-launch: a large launch is held in nestor_held, which
// runtime_parent's block launches after every thread has left this body.
__device__ __forceinline__ void runtime_parent_nestor_body(const unsigned *off, float *out, unsigned rows, int *err, nestor::tmpl::held_launch<add_child_nestor_launch> &nestor_held) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (cudaPeekAtLastError() != cudaSuccess) *err = 1;
  if (r < rows) {
    // dpar-opt, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): a launch of fewer than 64 threads
    // runs in this thread; a larger one is held, and this block makes one device launch for all of them
    // after the parent body.
    const dim3 nestor_grid((off[r + 1] - off[r] + 63) / 64), nestor_block(64);
    add_child_nestor_launch nestor_item;
    nestor_item.out = out;
    nestor_item.first = off[r];
    nestor_item.count = off[r + 1] - off[r];
    nestor_item.nestor_grid = nestor_grid;
    nestor_item.nestor_block = nestor_block;
    if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 64ull ||
         (unsigned long long)(off[r + 1] - off[r]) < 64ull) ||
        !nestor_held.hold(nestor_item))
      nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
          [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
        add_child_nestor_thread(out, off[r], off[r + 1] - off[r], nestor_t, nestor_b, nestor_bd, nestor_gd);
      });
  }
}

__global__ void runtime_parent(const unsigned *off, float *out, unsigned rows, int *err) {
  // dpar-opt, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): the body runs launches of add_child
  // below 64 threads in their thread and holds larger ones; then thread 0 makes one device launch of
  // add_child_nestor_dpar for all of them (CDP2: the parent never waits; the child grid completes before
  // the parent grid, as the original children did). Without -rdc the block runs them itself.
  nestor::tmpl::held_launch<add_child_nestor_launch> nestor_held;
  runtime_parent_nestor_body(off, out, rows, err, nestor_held);
  nestor::tmpl::dpar_opt_launches(nestor_held, [](const add_child_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    add_child_nestor_thread(a.out, a.first, a.count, t, b, bd, gd);
  },
  [](const nestor::tmpl::launch_batch<add_child_nestor_launch> &nestor_batch) {
#if defined(__CUDACC_RDC__) // without -rdc the block runs the held launches itself
    add_child_nestor_dpar<<<nestor_batch.count, nestor::tmpl::kBatchThreads>>>(nestor_batch);
#endif
  });
}

// A parent with a barrier: dbuf-shared-launch and dpar-opt-launch follow its
// body with a block phase that has barriers of its own.
__global__ void barrier_parent(const unsigned *off, float *out, unsigned rows) {
  __shared__ unsigned first[128];
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  first[threadIdx.x] = r < rows ? off[r] : 0;
  __syncthreads();
  if (r < rows) add_child<<<(off[r + 1] - first[threadIdx.x] + 63) / 64, 64>>>(out, first[threadIdx.x], off[r + 1] - off[r]);
}
// A parent launched with dynamic shared memory: dbuf-shared-launch's static
// buffer could push the block over the limit (dpar-opt-launch applies).
__global__ void dynamic_shared_parent(const unsigned *off, float *out, unsigned rows) {
  extern __shared__ unsigned scratch[];
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  scratch[threadIdx.x] = r;
  if (r < rows) add_child<<<(off[r + 1] - off[r] + 63) / 64, 64>>>(out, off[r], off[r + 1] - off[r]);
}

void host(const unsigned *off, const float *in, float *out, unsigned rows, int *err) {
  tile_parent<<<(rows + 127) / 128, 128>>>(off, in, out, rows);
  loop_parent<<<(rows + 127) / 128, 128>>>(off, out, rows);
  runtime_parent<<<(rows + 127) / 128, 128>>>(off, out, rows, err);
  barrier_parent<<<(rows + 127) / 128, 128>>>(off, out, rows);
  dynamic_shared_parent<<<(rows + 127) / 128, 128, 128 * sizeof(unsigned)>>>(off, out, rows);
}
