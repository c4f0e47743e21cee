// A device launch whose arguments name the parent's locals `t`, `b`, `bd`
// and `gd`: a launch template that runs small launches in the parent thread
// must pass these, not names of its own (tests/rewrite: the eleventh
// held-out set's gossip round, `t - 1`, did not compile).
#include <cuda_runtime.h>
#include <nestor/delayed_launches.cuh>

__global__ void spread(const unsigned *adj, unsigned first, unsigned deg, int level, int weight, int bias, int shift,
                       int *out) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) atomicMax(&out[adj[first + j]], level + weight + bias + shift);
}

// spread with its thread identity as parameters (dpar-opt-launch): run by the parent thread
// or by spread_nestor_dpar for delayed launches.
__device__ __forceinline__ void spread_nestor_thread(const unsigned *adj, unsigned first, unsigned deg, int level, int weight, int bias, int shift, int *out, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) atomicMax(&out[adj[first + j]], level + weight + bias + shift);
}

// A delayed launch of spread: its arguments and configuration.
struct spread_nestor_launch {
  const unsigned *adj;
  unsigned first;
  unsigned deg;
  int level;
  int weight;
  int bias;
  int shift;
  int *out;
  dim3 nestor_grid, nestor_block;
};

// The child of dpar-opt ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): one launch per
// parent block; block k runs the block's delayed launch k, its threads striding over the child threads.
__global__ void spread_nestor_dpar(nestor::tmpl::launch_batch<spread_nestor_launch> nestor_batch) {
  nestor::tmpl::run_launch_batch(nestor_batch, [](const spread_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    spread_nestor_thread(a.adj, a.first, a.deg, a.level, a.weight, a.bias, a.shift, a.out, t, b, bd, gd);
  });
}

// The body of names_parent for dpar-opt-launch: a large launch is held in nestor_held, which
// names_parent's block launches after every thread has left this body.
__device__ __forceinline__ void names_parent_nestor_body(const unsigned *row, const unsigned *adj, const int *ttl, int *out, unsigned nv, nestor::tmpl::held_launch<spread_nestor_launch> &nestor_held) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nv) return;
  int t = ttl[v];
  if (t <= 0) return;
  int b = t / 2, bd = t % 3, gd = 1;
  unsigned first = row[v];
  unsigned deg = row[v + 1] - first;
  if (deg > 0)
    {
      // dpar-opt, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): a launch of fewer than 32 threads
      // runs in this thread; a larger one is held, and this block makes one device launch for all of them
      // after the parent body.
      const dim3 nestor_grid((deg + 63) / 64), nestor_block(64);
      spread_nestor_launch nestor_item;
      nestor_item.adj = adj;
      nestor_item.first = first;
      nestor_item.deg = deg;
      nestor_item.level = t - 1;
      nestor_item.weight = b;
      nestor_item.bias = bd;
      nestor_item.shift = gd;
      nestor_item.out = out;
      nestor_item.nestor_grid = nestor_grid;
      nestor_item.nestor_block = nestor_block;
      if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 32ull ||
           (unsigned long long)(deg) < 32ull) ||
          !nestor_held.hold(nestor_item))
        nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
            [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
          spread_nestor_thread(adj, first, deg, t - 1, b, bd, gd, out, nestor_t, nestor_b, nestor_bd, nestor_gd);
        });
    }
}

__global__ void names_parent(const unsigned *row, const unsigned *adj, const int *ttl, int *out, unsigned nv) {
  // dpar-opt, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): the body runs launches of spread
  // below 32 threads in their thread and holds larger ones; then thread 0 makes one device launch of
  // spread_nestor_dpar for all of them (CDP2: the parent never waits; the child grid completes before
  // the parent grid, as the original children did). Without -rdc the block runs them itself.
  nestor::tmpl::held_launch<spread_nestor_launch> nestor_held;
  names_parent_nestor_body(row, adj, ttl, out, nv, nestor_held);
  nestor::tmpl::dpar_opt_launches(nestor_held, [](const spread_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    spread_nestor_thread(a.adj, a.first, a.deg, a.level, a.weight, a.bias, a.shift, a.out, t, b, bd, gd);
  },
  [](const nestor::tmpl::launch_batch<spread_nestor_launch> &nestor_batch) {
#if defined(__CUDACC_RDC__) // without -rdc the block runs the held launches itself
    spread_nestor_dpar<<<nestor_batch.count, nestor::tmpl::kBatchThreads>>>(nestor_batch);
#endif
  });
}

void names_round(const unsigned *row, const unsigned *adj, const int *ttl, int *out, unsigned nv) {
  names_parent<<<(nv + 127) / 128, 128>>>(row, adj, ttl, out, nv);
}
