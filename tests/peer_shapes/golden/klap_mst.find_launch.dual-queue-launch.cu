// peer-shape: dp-threshold-coarsen-aggregate-thesis (KLAP) MSTF, minimum spanning tree (find kernel)
//
// Boruvka's minimum spanning forest with the find step in the shape of the
// thesis' MSTF benchmark (Table 4.1, LonestarGPU's MST as KLAP runs it):
// one parent thread per vertex launches a child grid over the vertex's
// edges; each child thread whose edge leaves the vertex's component offers
// it to the component's minimum with a 64-bit atomicMin. The host then joins
// each component along its minimum edge and relabels the vertices, until no
// component has an edge out. Written here, in that style. An edge's key is
// (weight, smaller end, larger end), the same from both ends, so the forest
// is unique; the program checks its edges against a serial Kruskal.
//
// --flat selects the hand-written non-nested version: the edge loop in the
// vertex's thread.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I tests/peer_shapes klap_mst.cu -lcudadevrt
#include <algorithm>
#include <numeric>

#include "peer_shapes.h"
#include <nestor/promote.cuh>

#define MST_CHILD_BLOCK 128
#define MST_NONE 0xffffffffffffffffull

__host__ __device__ inline unsigned long long mst_key(unsigned weight, unsigned a, unsigned b) {
  unsigned lo = a < b ? a : b, hi = a < b ? b : a;
  return (static_cast<unsigned long long>(weight) << 56) | (static_cast<unsigned long long>(lo) << 28) | hi;
}

__global__ void mst_find_edges(unsigned v, const unsigned *row_start, const unsigned *adjacency,
                               const unsigned *weight, const unsigned *comp, unsigned long long *best) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < row_start[v + 1] - row_start[v]) {
    unsigned e = row_start[v] + k;
    unsigned u = adjacency[e];
    if (comp[u] != comp[v]) atomicMin(&best[comp[v]], mst_key(weight[e], u, v));
  }
}

// mst_find_edges with its thread identity as parameters (dual-queue-launch): run by the parent thread
// or by mst_find_edges_nestor_drain for delayed launches.
__device__ __forceinline__ void mst_find_edges_nestor_thread(unsigned v, const unsigned *row_start, const unsigned *adjacency, const unsigned *weight, const unsigned *comp, unsigned long long *best, uint3 threadIdx, uint3 blockIdx, dim3 blockDim, dim3 gridDim) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < row_start[v + 1] - row_start[v]) {
    unsigned e = row_start[v] + k;
    unsigned u = adjacency[e];
    if (comp[u] != comp[v]) atomicMin(&best[comp[v]], mst_key(weight[e], u, v));
  }
}

// A delayed launch of mst_find_edges: its arguments and configuration.
struct mst_find_edges_nestor_launch {
  unsigned v;
  const unsigned *row_start;
  const unsigned *adjacency;
  const unsigned *weight;
  const unsigned *comp;
  unsigned long long *best;
  dim3 nestor_grid, nestor_block;
};

// The pass over delayed launches ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B, dual-queue): block-mapped,
// one block per launch striding over its child threads, or thread-mapped for the small queue, one thread
// per launch running all its child threads.
__global__ void mst_find_edges_nestor_drain(nestor::tmpl::launch_queue<mst_find_edges_nestor_launch> nestor_lq, bool nestor_block_mapped) {
  nestor::tmpl::drain_launches(nestor_lq, nestor_block_mapped, [](const mst_find_edges_nestor_launch &a, uint3 t, uint3 b, dim3 bd, dim3 gd) {
    mst_find_edges_nestor_thread(a.v, a.row_start, a.adjacency, a.weight, a.comp, a.best, t, b, bd, gd);
  });
}

__global__ void mst_find(unsigned n, const unsigned *row_start, const unsigned *adjacency, const unsigned *weight,
                         const unsigned *comp, unsigned long long *best, nestor::tmpl::launch_queues<mst_find_edges_nestor_launch> nestor_lq = {}) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    unsigned degree = row_start[v + 1] - row_start[v];
    if (degree > 0)
      {
        // dual-queue, lb_threshold 64 ("Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-B), no dynamic parallelism: the launch is
        // queued as small (fewer than 64 threads, thread-mapped pass) or large (block-mapped pass);
        // the passes run after this grid (CDP2 gives no earlier guarantee either).
        const dim3 nestor_grid((degree + MST_CHILD_BLOCK - 1) / MST_CHILD_BLOCK), nestor_block(MST_CHILD_BLOCK);
        mst_find_edges_nestor_launch nestor_item;
        nestor_item.v = v;
        nestor_item.row_start = row_start;
        nestor_item.adjacency = adjacency;
        nestor_item.weight = weight;
        nestor_item.comp = comp;
        nestor_item.best = best;
        nestor_item.nestor_grid = nestor_grid;
        nestor_item.nestor_block = nestor_block;
        if (!nestor::tmpl::push_launch((nestor::tmpl::detail::volume(nestor_grid) * nestor::tmpl::detail::volume(nestor_block) < 64ull ||
             (unsigned long long)(degree) < 64ull) ? nestor_lq.small : nestor_lq.large, nestor_item))
          nestor::tmpl::run_launch_in_thread(nestor_grid, nestor_block,
              [&](uint3 nestor_t, uint3 nestor_b, dim3 nestor_bd, dim3 nestor_gd) {
            mst_find_edges_nestor_thread(v, row_start, adjacency, weight, comp, best, nestor_t, nestor_b, nestor_bd, nestor_gd);
          });
      } // peer-site: find_launch
  }
}

// The non-nested version (--flat).
__global__ void mst_find_flat(unsigned n, const unsigned *row_start, const unsigned *adjacency,
                              const unsigned *weight, const unsigned *comp, unsigned long long *best) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) {
    for (unsigned e = row_start[v]; e < row_start[v + 1]; ++e) { // peer-site: flat_loop --flat
      unsigned u = adjacency[e];
      if (comp[u] != comp[v]) atomicMin(&best[comp[v]], mst_key(weight[e], u, v));
    }
  }
}

struct disjoint_sets {
  std::vector<unsigned> parent;
  explicit disjoint_sets(unsigned n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  unsigned find(unsigned x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  bool join(unsigned a, unsigned b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    parent[a < b ? b : a] = a < b ? a : b;
    return true;
  }
};

static void decode(unsigned long long key, unsigned &a, unsigned &b) {
  a = unsigned(key >> 28) & ((1u << 28) - 1);
  b = unsigned(key) & ((1u << 28) - 1);
}

int main(int argc, char **argv) {
  const bool flat = peer::take_switch(argc, argv, "--flat");
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = peer::undirected(graph::make_graph(opt));
  } catch (const std::exception &e) {
    std::fprintf(stderr, "klap_mst: %s\n%s  --flat  the non-nested version\n", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;
  PEER_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, n + 4096));
  unsigned *d_offsets = peer::to_device(g.offsets), *d_targets = peer::to_device(g.targets);
  unsigned *d_weights = peer::to_device(g.weights);
  unsigned *d_comp = peer::to_device(std::vector<unsigned>(n, 0u));
  unsigned long long *d_best = peer::to_device(std::vector<unsigned long long>(n, MST_NONE));
  std::vector<unsigned long long> forest;
  const unsigned blocks = (n + 127) / 128;
  const double ms = peer::timed(
      opt.reps, [&] { forest.clear(); },
      [&] {
        disjoint_sets sets(n);
        std::vector<unsigned> comp(n);
        std::iota(comp.begin(), comp.end(), 0u);
        for (bool joined = true; joined;) {
          PEER_CHECK(cudaMemcpy(d_comp, comp.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
          PEER_CHECK(cudaMemset(d_best, 0xff, n * sizeof(unsigned long long)));
          if (flat) mst_find_flat<<<blocks, 128>>>(n, d_offsets, d_targets, d_weights, d_comp, d_best);
          else nestor::tmpl::launch_promoted<mst_find_edges_nestor_launch>(blocks, 128, true,
              [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queues<mst_find_edges_nestor_launch> nestor_lq) {
                mst_find<<<nestor_g, nestor_b, 0>>>(n, d_offsets, d_targets, d_weights, d_comp, d_best, nestor_lq);
              },
              [&](dim3 nestor_g, dim3 nestor_b, nestor::tmpl::launch_queue<mst_find_edges_nestor_launch> nestor_q, bool nestor_block_mapped) {
                mst_find_edges_nestor_drain<<<nestor_g, nestor_b>>>(nestor_q, nestor_block_mapped);
              });
          const std::vector<unsigned long long> best = peer::from_device(d_best, n);
          joined = false;
          for (unsigned c = 0; c < n; ++c) {
            if (best[c] == MST_NONE) continue;
            unsigned a, b;
            decode(best[c], a, b);
            if (sets.join(a, b)) {
              forest.push_back(best[c]);
              joined = true;
            }
          }
          for (unsigned v = 0; v < n; ++v) comp[v] = sets.find(v);
        }
      });
  std::sort(forest.begin(), forest.end());

  // Kruskal over the same keys.
  std::vector<unsigned long long> keys;
  for (unsigned v = 0; v < n; ++v)
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (g.targets[e] != v) keys.push_back(mst_key(g.weights[e], g.targets[e], v));
  std::sort(keys.begin(), keys.end());
  disjoint_sets sets(n);
  std::vector<unsigned long long> expect;
  for (unsigned long long k : keys) {
    unsigned a, b;
    decode(k, a, b);
    if (sets.join(a, b)) expect.push_back(k);
  }
  if (!peer::matches("klap_mst", forest, expect)) return 1;
  unsigned long long total = 0;
  for (unsigned long long k : forest) total += k >> 56;
  std::printf("klap_mst: %zu forest edges, weight %llu\n", forest.size(), total);
  // The result: the forest's size and weight (never empty, also for a graph
  // without edges), then its edges' keys.
  std::vector<unsigned long long> result = {forest.size(), total};
  result.insert(result.end(), forest.begin(), forest.end());
  return peer::finish(flat ? "klap_mst_flat" : "klap_mst", opt, g, ms, result);
}
