// peer-shape: dp-threshold-coarsen-aggregate-thesis (KLAP) GC, graph colouring
//
// Jones-Plassmann graph colouring in the shape of KLAP's GC application
// (El Hajj et al., "KLAP: Kernel Launch Aggregation and Promotion for
// Optimizing Dynamic Parallelism"): one parent thread per uncoloured vertex
// launches a child grid over the vertex's neighbours; each child thread
// clears the vertex's "I am the local maximum" flag when its neighbour is
// uncoloured and outranks it; a host-launched kernel then colours the local
// maxima with the round's colour. Written here, in that style.
//
// --flat selects the hand-written non-nested version (KLAP's NoCDP): one
// thread per vertex counting the outranking neighbours in a loop, the
// thread-mapped colouring of Li, Wu and Becchi's templates paper.
// Both produce the same colouring; the program checks it against a serial
// Jones-Plassmann and checks that no edge joins two vertices of one colour.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I examples/graph -I tests/peer_shapes klap_gc.cu -lcudadevrt
#include "peer_shapes.h"
#include <nestor/delayed_launches.cuh>

#define GC_CHILD_BLOCK 128

// A deterministic priority per vertex; ties are broken by the vertex id.
__host__ __device__ inline unsigned gc_priority(unsigned v) {
  unsigned h = v * 2654435761u;
  h ^= h >> 15;
  h *= 2246822519u;
  return h ^ (h >> 13);
}

__host__ __device__ inline bool gc_outranks(unsigned u, unsigned v) {
  unsigned pu = gc_priority(u), pv = gc_priority(v);
  return pu > pv || (pu == pv && u > v);
}

__global__ void gc_check_neighbours(unsigned v, const unsigned *row_start, const unsigned *adjacency,
                                    const unsigned *color, unsigned *is_max) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned degree = row_start[v + 1] - row_start[v];
  if (k < degree) {
    unsigned u = adjacency[row_start[v] + k];
    if (color[u] == 0 && gc_outranks(u, v)) is_max[v] = 0;
  }
}

// gc_check_neighbours with its thread identity as parameters (dpar-opt-launch): run by the parent thread
// or by gc_check_neighbours_nestor_dpar for delayed launches.
__device__ __forceinline__ void gc_check_neighbours_nestor_thread(unsigned v, const unsigned *row_start, const unsigned *adjacency, const unsigned *color, unsigned *is_max, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned degree = row_start[v + 1] - row_start[v];
  if (k < degree) {
    unsigned u = adjacency[row_start[v] + k];
    if (color[u] == 0 && gc_outranks(u, v)) is_max[v] = 0;
  }
}

// A delayed launch of gc_check_neighbours: its arguments and configuration.
struct gc_check_neighbours_nestor_launch {
  unsigned v;
  const unsigned *row_start;
  const unsigned *adjacency;
  const unsigned *color;
  unsigned *is_max;
  dim3 nestor_grid, nestor_block;
};

// The child of dpar-opt ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): one launch per
// parent block; block k runs the block's delayed launch k, its threads striding over the child threads.
__global__ void gc_check_neighbours_nestor_dpar(nestor::tmpl::launch_batch<gc_check_neighbours_nestor_launch> nestor_batch) {
  nestor::tmpl::run_launch_batch(nestor_batch, [](const gc_check_neighbours_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    gc_check_neighbours_nestor_thread(a.v, a.row_start, a.adjacency, a.color, a.is_max, t, b, bd, gd);
  });
}

// The body of gc_select for dpar-opt-launch: a large launch is held in nestor_held, which
// gc_select's block launches after every thread has left this body.
__device__ __forceinline__ void gc_select_nestor_body(unsigned n, const unsigned *row_start, const unsigned *adjacency, const unsigned *color, unsigned *is_max, nestor::tmpl::held_launch<gc_check_neighbours_nestor_launch> &nestor_held) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && color[v] == 0) {
    is_max[v] = 1;
    unsigned degree = row_start[v + 1] - row_start[v];
    if (degree > 0)
      {
        // dpar-opt, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B): a launch of fewer than 64 threads
        // runs in this thread; a larger one is held, and this block makes one device launch for all of them
        // after the parent body.
        const dim3 nestor_grid((degree + GC_CHILD_BLOCK - 1) / GC_CHILD_BLOCK), nestor_block(GC_CHILD_BLOCK);
        gc_check_neighbours_nestor_launch nestor_item;
        nestor_item.v = v;
        nestor_item.row_start = row_start;
        nestor_item.adjacency = adjacency;
        nestor_item.color = color;
        nestor_item.is_max = is_max;
        nestor_item.nestor_grid = nestor_grid;
        nestor_item.nestor_block = nestor_block;
        if ((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 64ull ||
             (unsigned long long)(degree) < 64ull) ||
            !nestor_held.hold(nestor_item))
          nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
              [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
            gc_check_neighbours_nestor_thread(v, row_start, adjacency, color, is_max, nestor_t, nestor_b, nestor_bd, nestor_gd);
          });
      } // peer-site: select_launch
  }
}

__global__ void gc_select(unsigned n, const unsigned *row_start, const unsigned *adjacency, const unsigned *color,
                          unsigned *is_max) {
  // dpar-opt, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, Figure 1(e)): the body runs launches of gc_check_neighbours
  // below 64 threads in their thread and holds larger ones; then thread 0 makes one device launch of
  // gc_check_neighbours_nestor_dpar for all of them (CDP2: the parent never waits; the child grid completes before
  // the parent grid, as the original children did). Without -rdc the block runs them itself.
  nestor::tmpl::held_launch<gc_check_neighbours_nestor_launch> nestor_held;
  gc_select_nestor_body(n, row_start, adjacency, color, is_max, nestor_held);
  nestor::tmpl::dpar_opt_launches(nestor_held, [](const gc_check_neighbours_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    gc_check_neighbours_nestor_thread(a.v, a.row_start, a.adjacency, a.color, a.is_max, t, b, bd, gd);
  },
  [](const nestor::tmpl::launch_batch<gc_check_neighbours_nestor_launch> &nestor_batch) {
#if defined(__CUDACC_RDC__) // without -rdc the block runs the held launches itself
    gc_check_neighbours_nestor_dpar<<<nestor_batch.count, nestor::tmpl::kBatchThreads>>>(nestor_batch);
#endif
  });
}

// The non-nested version (--flat): the neighbour loop in the vertex's thread.
__global__ void gc_select_flat(unsigned n, const unsigned *row_start, const unsigned *adjacency,
                               const unsigned *color, unsigned *is_max) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && color[v] == 0) {
    unsigned above = 0;
    for (unsigned e = row_start[v]; e < row_start[v + 1]; ++e) { // peer-site: flat_loop --flat
      unsigned u = adjacency[e];
      if (color[u] == 0 && gc_outranks(u, v)) above += 1;
    }
    is_max[v] = above == 0;
  }
}

__global__ void gc_assign(unsigned n, unsigned round, unsigned *color, const unsigned *is_max, unsigned *left) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && color[v] == 0) {
    if (is_max[v]) color[v] = round;
    else atomicAdd(left, 1u);
  }
}

static std::vector<unsigned> serial_colouring(const graph::csr &g) {
  std::vector<unsigned> color(g.vertices, 0);
  for (unsigned round = 1;; ++round) {
    std::vector<unsigned> chosen;
    for (unsigned v = 0; v < g.vertices; ++v) {
      if (color[v]) continue;
      bool is_max = true;
      for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
        if (color[g.targets[e]] == 0 && gc_outranks(g.targets[e], v)) is_max = false;
      if (is_max) chosen.push_back(v);
    }
    if (chosen.empty()) return color;
    for (unsigned v : chosen) color[v] = round;
  }
}

int main(int argc, char **argv) {
  const bool flat = peer::take_switch(argc, argv, "--flat");
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = peer::undirected(graph::make_graph(opt));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "klap_gc: %s\n%s  --flat  the non-nested version\n", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;
  // One pending child grid per uncoloured vertex and round.
  PEER_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, n + 4096));
  unsigned *d_offsets = peer::to_device(g.offsets), *d_targets = peer::to_device(g.targets);
  unsigned *d_color = peer::to_device(std::vector<unsigned>(n, 0u));
  unsigned *d_is_max = peer::to_device(std::vector<unsigned>(n, 0u));
  unsigned *d_left = peer::to_device(std::vector<unsigned>(1, 0u));
  const unsigned blocks = (n + 127) / 128;
  unsigned rounds = 0;
  const double ms = peer::timed(
      opt.reps, [&] { PEER_CHECK(cudaMemset(d_color, 0, n * sizeof(unsigned))); },
      [&] {
        for (rounds = 1;; ++rounds) {
          if (flat) gc_select_flat<<<blocks, 128>>>(n, d_offsets, d_targets, d_color, d_is_max);
          else gc_select<<<blocks, 128>>>(n, d_offsets, d_targets, d_color, d_is_max);
          PEER_CHECK(cudaMemset(d_left, 0, sizeof(unsigned)));
          gc_assign<<<blocks, 128>>>(n, rounds, d_color, d_is_max, d_left);
          unsigned left = 0;
          PEER_CHECK(cudaMemcpy(&left, d_left, sizeof left, cudaMemcpyDeviceToHost));
          if (left == 0 || rounds > n) break;
        }
      });
  const std::vector<unsigned> color = peer::from_device(d_color, n);
  if (!peer::matches("klap_gc", color, serial_colouring(g))) return 1;
  for (unsigned v = 0; v < n; ++v)
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (g.targets[e] != v && color[g.targets[e]] == color[v]) {
        std::fprintf(stderr, "klap_gc: vertices %u and %u share colour %u\n", v, g.targets[e], color[v]);
        return 1;
      }
  std::printf("klap_gc: %u vertices coloured in %u rounds\n", n, rounds);
  return peer::finish(flat ? "klap_gc_flat" : "klap_gc", opt, g, ms, color);
}
