// Host-only helpers of the held-out sets' measure_inputs.cpp (heldout6/ on):
// the mean and skew of a list of sizes, the row lengths of a generated CSR,
// the out-degrees of a generated graph, and the `tree` command they all share.
// The skew is log(mean over groups of 32 consecutive items of the group's
// largest / overall mean) / log(32): 0 for equal lengths, 1 when each group's
// largest is 32 times the mean. No GPU and no CUDA call.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "loops_harness.cuh"
#include "graph.h"
#include "tree.h"

namespace input_stats {

inline double mean_of(const std::vector<double> &v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / double(v.size());
}

inline double skew_of(const std::vector<double> &len) {
  const double m = mean_of(len);
  if (len.empty() || m <= 0) return 0;
  double largest = 0;
  size_t groups = 0;
  for (size_t g = 0; g < len.size(); g += 32) {
    const size_t end = std::min(len.size(), g + 32);
    largest += *std::max_element(len.begin() + long(g), len.begin() + long(end));
    ++groups;
  }
  return std::log(largest / double(groups) / m) / std::log(32.0);
}

/// `csr powerlaw|regular ROWS AVG SEED` (argv[2..5]): the row lengths of the
/// matrix loops::generate_csr makes for those arguments.
inline std::vector<double> csr_row_lengths(char **argv, size_t *entries) {
  const std::string kind = argv[2];
  loops::graph_kind() = kind;
  const int rows = std::atoi(argv[3]), avg = std::atoi(argv[4]);
  const loops::Csr a = loops::generate_csr(rows, rows, avg, kind == "powerlaw", unsigned(std::atol(argv[5])));
  std::vector<double> len(size_t(rows), 0.0);
  for (size_t r = 0; r < len.size(); ++r) len[r] = double(a.rowptr[r + 1] - a.rowptr[r]);
  *entries = a.col.size();
  return len;
}

/// `graph powerlaw|regular NV DEG` (argv[2..4]): the graph graph.h makes.
inline graph::csr make_graph(char **argv) {
  graph::options o;
  o.graph = argv[2];
  o.vertices = uint32_t(std::atol(argv[3]));
  o.degree = uint32_t(std::atol(argv[4]));
  return graph::make_graph(o);
}

inline std::vector<double> out_degrees(const graph::csr &g) {
  std::vector<double> deg(g.vertices);
  for (uint32_t v = 0; v < g.vertices; ++v) deg[v] = g.degree(v);
  return deg;
}

/// `tree regular|skewed DEGREE DEPTH MAXNODES` (argv[2..5]): nodes, mean child
/// count of a node with children, root degree, skew over the nodes with
/// children in breadth-first order.
inline int print_tree(char **argv) {
  tree::options o;
  o.kind = argv[2];
  o.degree = uint32_t(std::atol(argv[3]));
  o.depth = uint32_t(std::atol(argv[4]));
  o.max_nodes = uint32_t(std::atol(argv[5]));
  const tree::csr t = tree::make_tree(o);
  std::vector<double> kids;
  for (uint32_t v = 0; v < t.nodes; ++v)
    if (t.degree(v) > 0) kids.push_back(t.degree(v));
  std::printf("nodes %u inner %zu mean_children %.2f root_degree %u skew %.2f\n", t.nodes, kids.size(),
              mean_of(kids), t.degree(0), skew_of(kids));
  return 0;
}

}  // namespace input_stats
