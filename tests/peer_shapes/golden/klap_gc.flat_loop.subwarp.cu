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
#include <nestor/np.cuh>

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

__global__ void gc_select(unsigned n, const unsigned *row_start, const unsigned *adjacency, const unsigned *color,
                          unsigned *is_max) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n && color[v] == 0) {
    is_max[v] = 1;
    unsigned degree = row_start[v + 1] - row_start[v];
    if (degree > 0)
      gc_check_neighbours<<<(degree + GC_CHILD_BLOCK - 1) / GC_CHILD_BLOCK, GC_CHILD_BLOCK>>>(v, row_start, adjacency, color, is_max); // peer-site: select_launch
  }
}

// The non-nested version (--flat): the neighbour loop in the vertex's thread.
__global__ void gc_select_flat(unsigned n, const unsigned *row_start, const unsigned *adjacency,
                               const unsigned *color, unsigned *is_max) {
  // Sub-warp decomposition, width 8: master = linear thread / 8, slave = linear thread % 8 ("CUDA-NP: Realizing Nested Thread-Level Parallelism in GPGPU Applications", 3.4, 3.7).
  using nestor_np_group = nestor::np::intra<8>;
  const dim3 nestor_blockDim(blockDim.x / 8, blockDim.y, blockDim.z);
  const unsigned nestor_master = nestor_np_group::master_id();
  const uint3 nestor_threadIdx = make_uint3(nestor_master % nestor_blockDim.x, nestor_master / nestor_blockDim.x % nestor_blockDim.y, nestor_master / (nestor_blockDim.x * nestor_blockDim.y));
  unsigned v = blockIdx.x * nestor_blockDim.x + nestor_threadIdx.x;
  if (nestor_np_group::read_from_master(nestor_np_group::is_master() ? bool(v < n && color[v] == 0) : false)) {
    unsigned above = 0;
    // Sub-warp decomposition, width 8: iterations spread over the master and its slaves (inferred: #pragma np parallel for reduction(+:above))
    above = nestor::subwarp::for_each_index<8>(row_start[v], row_start[v + 1], [=](unsigned int e) { return ((color[(adjacency[e])] == 0 && gc_outranks((adjacency[e]), v)) ? (1) : (unsigned int)0); }, nestor::op::add{}, above);
    if (nestor_np_group::is_master()) { is_max[v] = above == 0; }
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
          if (flat) gc_select_flat<<<blocks, dim3(1024, 1, 1) /* Sub-warp decomposition, width 8, was 128 */>>>(n, d_offsets, d_targets, d_color, d_is_max);
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
