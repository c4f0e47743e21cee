// Host-only: the sizes and skew that bench/mapping/heldout5.tsv gives the
// mapping model, measured on the inputs the held-out programs generate (the
// same generators and seeds: loops_harness.cuh's make_csr, graph.h, tree.h).
// No GPU and no CUDA call; nothing here reads the model.
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout5/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw ROWS AVG SEED      mean row length, skew
//   measure_inputs graph powerlaw|regular NV DEG   mean out-degree (all vertices), skew; mean child-thread
//                                                  trip of a prefix walk (j + 1 for edge j of a list)
//   measure_inputs hubs powerlaw|regular NV DEG MIN   hubs (out-degree >= MIN): count, mean degree, skew
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES   mean child count of a node with children,
//                                                  root degree, skew over the nodes with children (BFS order)
// Skew: log(mean over groups of 32 consecutive items of the group's largest / overall mean) / log(32).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "loops_harness.cuh"
#include "graph.h"
#include "tree.h"

static double skew(const std::vector<double> &len) {
  if (len.empty()) return 0;
  double sum = 0;
  for (double l : len) sum += l;
  const double mean = sum / len.size();
  if (mean <= 0) return 0;
  double gsum = 0;
  size_t groups = 0;
  for (size_t i = 0; i < len.size(); i += 32, ++groups) {
    double m = 0;
    for (size_t j = i; j < len.size() && j < i + 32; ++j) m = std::max(m, len[j]);
    gsum += m;
  }
  return std::log(gsum / groups / mean) / std::log(32.0);
}

static double mean(const std::vector<double> &v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

int main(int argc, char **argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "csr" && argc == 6) {
    loops::graph_kind() = argv[2];
    const int rows = std::atoi(argv[3]), avg = std::atoi(argv[4]);
    loops::Csr a = loops::generate_csr(rows, rows, avg, std::string(argv[2]) == "powerlaw", unsigned(std::atoi(argv[5])));
    std::vector<double> len(static_cast<size_t>(rows));
    for (int r = 0; r < rows; ++r) len[size_t(r)] = a.rowptr[size_t(r) + 1] - a.rowptr[size_t(r)];
    std::printf("rows %d entries %zu mean_len %.2f skew %.2f\n", rows, a.col.size(), mean(len), skew(len));
    return 0;
  }
  if ((what == "graph" || what == "hubs") && argc >= 5) {
    graph::options o;
    o.graph = argv[2];
    o.vertices = uint32_t(std::atol(argv[3]));
    o.degree = uint32_t(std::atol(argv[4]));
    graph::csr g = graph::make_graph(o);
    if (what == "graph") {
      std::vector<double> deg(g.vertices);
      double trips = 0;
      for (uint32_t v = 0; v < g.vertices; ++v) {
        deg[v] = g.degree(v);
        trips += 0.5 * deg[v] * (deg[v] + 1);
      }
      std::printf("vertices %u edges %u mean_deg %.2f skew %.2f prefix_trip %.1f max_deg %u\n", g.vertices, g.edges(),
                  mean(deg), skew(deg), g.edges() ? trips / g.edges() : 0.0, g.degree(0));
    } else {
      const uint32_t min = uint32_t(std::atol(argv[5]));
      std::vector<double> deg;
      for (uint32_t v = 0; v < g.vertices; ++v)
        if (g.degree(v) >= min) deg.push_back(g.degree(v));
      std::printf("vertices %u edges %u hubs %zu hub_mean_deg %.1f skew %.2f\n", g.vertices, g.edges(), deg.size(),
                  mean(deg), skew(deg));
    }
    return 0;
  }
  if (what == "tree" && argc == 6) {
    tree::options o;
    o.kind = argv[2];
    o.degree = uint32_t(std::atol(argv[3]));
    o.depth = uint32_t(std::atol(argv[4]));
    o.max_nodes = uint32_t(std::atol(argv[5]));
    tree::csr t = tree::make_tree(o);
    std::vector<double> n;
    for (uint32_t v = 0; v < t.nodes; ++v)
      if (t.degree(v) > 0) n.push_back(t.degree(v));
    std::printf("nodes %u inner %zu mean_children %.2f root_degree %u skew %.2f\n", t.nodes, n.size(), mean(n),
                t.degree(0), skew(n));
    return 0;
  }
  std::fprintf(stderr, "usage: see the comment at the top of measure_inputs.cpp\n");
  return 2;
}
