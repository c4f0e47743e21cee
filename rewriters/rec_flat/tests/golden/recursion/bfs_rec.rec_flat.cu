// Recursive BFS written the way Li, Wu and Becchi's naive CDP kernel is
// ("Nested Parallelism on GPU: Exploring Parallelization Templates for
// Irregular Loops and Recursive Computations", the recursive BFS of its
// applications): one block per vertex whose depth improved, its threads
// striding over the vertex's neighbours from threadIdx.x, an atomicMin
// relaxation, and a one-block child grid sized by the neighbour's degree,
// launched only when this thread's relaxation improved the neighbour.
// Written here, in that style; rec-flat takes it (tests/rewrite/recursion.cmake),
// rec-hier refuses (whether a child recurses is known only after its
// relaxation). The program checks its depths against a serial BFS.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I examples/graph bfs_rec.cu -lcudadevrt
#include <climits>
#include <cstdio>
#include <queue>
#include <vector>

#include "graph.h"
#include <nestor/rec.cuh>

#define UNVISITED 0xffffffffu
#define CHILD_BLOCK 128

// One child: its pre-order statements, then whether it recurses (bfs_dp, lines 23-38).
__device__ __forceinline__ bool bfs_dp_nestor_visit(unsigned vertex, const unsigned *row_start, const unsigned *adjacency, unsigned *depth, unsigned int nb) {
  unsigned mine = depth[vertex];
  unsigned theirs = depth[nb];
  if (theirs == UNVISITED || theirs > mine + 1) {
      unsigned before = atomicMin(&depth[nb], mine + 1);
      if (before == theirs) {
        unsigned nb_degree = row_start[nb + 1] - row_start[nb];
        unsigned threads = nb_degree < CHILD_BLOCK ? nb_degree : CHILD_BLOCK;
        if (threads != 0) return true;
      }
    }
  return false;
}

// One level of bfs_dp's recursion without dynamic parallelism (rec-flat,
// "Nested Parallelism on GPU: Exploring Parallelization Templates for Irregular Loops and Recursive Computations", II-C): one thread per (frontier node, child) pair; a child that recursed
// in the original joins the next frontier.
__global__ void bfs_dp_nestor_level(const unsigned *row_start, const unsigned *adjacency, unsigned *depth, const unsigned int *nestor_frontier, const unsigned *nestor_first, unsigned nestor_nodes,
    unsigned nestor_pairs, unsigned int *nestor_next, unsigned *nestor_next_count) {
  for (unsigned nestor_p = blockIdx.x * blockDim.x + threadIdx.x; nestor_p < nestor_pairs;
       nestor_p += gridDim.x * blockDim.x) {
    const unsigned nestor_f = nestor::rec::owner(nestor_first, nestor_nodes, nestor_p);
    const unsigned int vertex = nestor_frontier[nestor_f];
    const unsigned int nb = adjacency[row_start[vertex] + (nestor_p - nestor_first[nestor_f])];
    if (bfs_dp_nestor_visit(vertex, row_start, adjacency, depth, nb))
      nestor::rec::push(nestor_next, nestor_next_count, static_cast<unsigned int>(nb));
  }
}

// bfs_dp's recursion from vertex, level by level, on the host's default stream (replaces its
// launches; no CDP needed).
static void bfs_dp_nestor_flat(unsigned vertex, const unsigned *row_start, const unsigned *adjacency, unsigned *depth) {
  nestor::rec::level_worklist<unsigned int> nestor_wl(vertex);
  while (nestor_wl.expand(row_start)) {
    bfs_dp_nestor_level<<<nestor_wl.blocks(), nestor_wl.block_size>>>(row_start, adjacency, depth, nestor_wl.frontier(), nestor_wl.first(), nestor_wl.nodes(), nestor_wl.pairs(),
        nestor_wl.next(), nestor_wl.next_count());
    nestor_wl.advance();
  }
}

static void bfs(unsigned source, const unsigned *row_start, const unsigned *adjacency, unsigned *depth,
                unsigned source_degree) {
  if (source_degree == 0) return;
  bfs_dp_nestor_flat(source, row_start, adjacency, depth);
}

#define CUDA_CHECK(expr)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (expr);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bfs_rec: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;
  // One pending launch per improved vertex, at most a few per vertex.
  CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 4 * n + 4096));
  unsigned *d_offsets, *d_targets, *d_depth;
  CUDA_CHECK(cudaMalloc(&d_offsets, (n + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_targets, (g.edges() + 1) * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&d_depth, n * sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(d_offsets, g.offsets.data(), (n + 1) * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_targets, g.targets.data(), g.edges() * sizeof(unsigned), cudaMemcpyHostToDevice));

  std::vector<unsigned> depth(n, UNVISITED);
  depth[0] = 0; // source: vertex 0, the hub
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int rep = 0; rep < opt.reps; ++rep) {
    CUDA_CHECK(cudaMemcpy(d_depth, depth.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaEventRecord(start));
    bfs(0, d_offsets, d_targets, d_depth, g.degree(0));
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::vector<unsigned> result(n);
  CUDA_CHECK(cudaMemcpy(result.data(), d_depth, n * sizeof(unsigned), cudaMemcpyDeviceToHost));

  // A serial BFS from vertex 0: a failed device-side launch leaves a depth
  // too large, which this catches (the kernel itself cannot report it).
  std::vector<unsigned> expect(n, UNVISITED);
  std::queue<unsigned> q;
  expect[0] = 0;
  q.push(0);
  while (!q.empty()) {
    unsigned v = q.front();
    q.pop();
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (expect[g.targets[e]] == UNVISITED) {
        expect[g.targets[e]] = expect[v] + 1;
        q.push(g.targets[e]);
      }
  }
  for (unsigned v = 0; v < n; ++v)
    if (result[v] != expect[v]) {
      std::fprintf(stderr, "bfs_rec: depth of vertex %u is %u, the serial BFS says %u\n", v, result[v], expect[v]);
      return 1;
    }
  try {
    if (!opt.out.empty()) graph::write_result(opt.out, result);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bfs_rec: %s\n", e.what());
    return 2;
  }
  graph::print_result_line("bfs_rec", opt, g, graph::median(times), 0);
  return 0;
}
