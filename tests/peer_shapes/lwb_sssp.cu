// peer-shape: irregular-loop-and-recursion-templates (Li, Wu, Becchi) SSSP
//
// Single-source shortest paths in the shape the templates paper takes as its
// SSSP baseline (the thread-mapped implementation it cites, [5]: Harish and
// Narayanan's): one thread per vertex of the frontier mask, a loop over the
// vertex's out-edges relaxing each neighbour's tentative cost with atomicMin,
// then an update kernel that settles improved costs, refills the mask and
// raises a flag; the host repeats until nothing changes. The inner loop is
// the irregular nested loop of the paper's Figure 1(a). Written here, in
// that style. The program checks the costs against a serial Dijkstra.
//
// Build: nvcc -rdc=true -arch=sm_90 -std=c++17 -I examples/graph -I tests/peer_shapes lwb_sssp.cu
#include <climits>
#include <queue>

#include "peer_shapes.h"

#define SSSP_INF 0xffffffffu

__global__ void sssp_relax(unsigned n, const unsigned *row_start, const unsigned *adjacency, const unsigned *weight,
                           unsigned *mask, const unsigned *cost, unsigned *updating_cost) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n && mask[tid]) {
    mask[tid] = 0;
    unsigned start = row_start[tid];
    unsigned end = row_start[tid + 1];
    for (unsigned e = start; e < end; ++e) { // peer-site: relax_loop
      unsigned nb = adjacency[e];
      atomicMin(&updating_cost[nb], cost[tid] + weight[e]);
    }
  }
}

__global__ void sssp_update(unsigned n, unsigned *mask, unsigned *cost, unsigned *updating_cost, unsigned *changed) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) {
    if (updating_cost[tid] < cost[tid]) {
      cost[tid] = updating_cost[tid];
      mask[tid] = 1;
      *changed = 1;
    }
    updating_cost[tid] = cost[tid];
  }
}

static std::vector<unsigned> serial_dijkstra(const graph::csr &g, unsigned source) {
  std::vector<unsigned> dist(g.vertices, SSSP_INF);
  using item = std::pair<unsigned long long, unsigned>;
  std::priority_queue<item, std::vector<item>, std::greater<item>> q;
  dist[source] = 0;
  q.push({0, source});
  while (!q.empty()) {
    auto [d, v] = q.top();
    q.pop();
    if (d != dist[v]) continue;
    for (unsigned e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const unsigned long long nd = d + g.weights[e];
      if (nd < dist[g.targets[e]]) {
        dist[g.targets[e]] = unsigned(nd);
        q.push({nd, g.targets[e]});
      }
    }
  }
  return dist;
}

int main(int argc, char **argv) {
  graph::options opt;
  graph::csr g;
  try {
    opt = graph::parse_options(argc, argv);
    g = graph::make_graph(opt);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "lwb_sssp: %s\n%s", e.what(), graph::usage());
    return 2;
  }
  const unsigned n = g.vertices;
  unsigned *d_offsets = peer::to_device(g.offsets), *d_targets = peer::to_device(g.targets);
  unsigned *d_weights = peer::to_device(g.weights);
  std::vector<unsigned> initial_cost(n, SSSP_INF), initial_mask(n, 0u);
  initial_cost[0] = 0;  // source: vertex 0, the hub
  initial_mask[0] = 1;
  unsigned *d_cost = peer::to_device(initial_cost), *d_updating = peer::to_device(initial_cost);
  unsigned *d_mask = peer::to_device(initial_mask), *d_changed = peer::to_device(std::vector<unsigned>(1, 0u));
  const unsigned blocks = (n + 191) / 192;
  const double ms = peer::timed(
      opt.reps,
      [&] {
        PEER_CHECK(cudaMemcpy(d_cost, initial_cost.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
        PEER_CHECK(cudaMemcpy(d_updating, initial_cost.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
        PEER_CHECK(cudaMemcpy(d_mask, initial_mask.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
      },
      [&] {
        for (unsigned changed = 1; changed;) {
          sssp_relax<<<blocks, 192>>>(n, d_offsets, d_targets, d_weights, d_mask, d_cost, d_updating);
          PEER_CHECK(cudaMemset(d_changed, 0, sizeof(unsigned)));
          sssp_update<<<blocks, 192>>>(n, d_mask, d_cost, d_updating, d_changed);
          PEER_CHECK(cudaMemcpy(&changed, d_changed, sizeof changed, cudaMemcpyDeviceToHost));
        }
      });
  const std::vector<unsigned> cost = peer::from_device(d_cost, n);
  if (!peer::matches("lwb_sssp", cost, serial_dijkstra(g, 0))) return 1;
  return peer::finish("lwb_sssp", opt, g, ms, cost);
}
