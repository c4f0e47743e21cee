// A device launch whose arguments name the parent's locals `t`, `b`, `bd`
// and `gd`: a launch template that runs small launches in the parent thread
// must pass these, not names of its own (tests/rewrite: the eleventh
// held-out set's gossip round, `t - 1`, did not compile).
#include <cuda_runtime.h>
#include <nestor/promote.cuh>

__global__ void spread(const unsigned *adj, unsigned first, unsigned deg, int level, int weight, int bias, int shift,
                       int *out) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < deg) atomicMax(&out[adj[first + j]], level + weight + bias + shift);
}

// spread with its thread identity as parameters (dbuf-global-launch): run by the parent thread
// or by spread_nestor_drain for delayed launches.
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

// The pass over delayed launches ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, dbuf-global): block-mapped,
// one block per launch striding over its child threads.
__global__ void spread_nestor_drain(nestor::tmpl::launch_queue<spread_nestor_launch> nestor_lq, bool nestor_block_mapped) {
  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, [](const spread_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    spread_nestor_thread(a.adj, a.first, a.deg, a.level, a.weight, a.bias, a.shift, a.out, t, b, bd, gd);
  });
}

__global__ void names_parent(const unsigned *row, const unsigned *adj, const int *ttl, int *out, unsigned nv, nestor::tmpl::launch_queues<spread_nestor_launch> nestor_lq = {}) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nv) return;
  int t = ttl[v];
  if (t <= 0) return;
  int b = t / 2, bd = t % 3, gd = 1;
  unsigned first = row[v];
  unsigned deg = row[v + 1] - first;
  if (deg > 0)
    {
      // dbuf-global, lb_threshold 32 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: a launch of
      // fewer than 32 threads runs in this thread; a larger one is delayed to spread_nestor_drain,
      // which runs after this grid (CDP2 gives no earlier guarantee either).
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
          !nestor::tmpl::push_launch(nestor_lq.large, nestor_item))
        nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
            [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
          spread_nestor_thread(adj, first, deg, t - 1, b, bd, gd, out, nestor_t, nestor_b, nestor_bd, nestor_gd);
        });
    }
}

void names_round(const unsigned *row, const unsigned *adj, const int *ttl, int *out, unsigned nv) {
  nestor::tmpl::launch_promoted<spread_nestor_launch>((nv + 127) / 128, 128, false,
      [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queues<spread_nestor_launch> nestor_lq) {
        names_parent<<<nestor_g, nestor_b, 0>>>(row, adj, ttl, out, nv, nestor_lq);
      },
      [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queue<spread_nestor_launch> nestor_q, bool nestor_block_mapped) {
        spread_nestor_drain<<<nestor_g, nestor_b>>>(nestor_q, nestor_block_mapped);
      });
}
