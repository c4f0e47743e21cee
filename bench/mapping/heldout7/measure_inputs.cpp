// Host-only: the sizes and skew that bench/mapping/heldout7.tsv gives the
// mapping model, measured on the inputs the seventh set's programs generate
// (the same generators and seeds: loops_harness.cuh's make_csr, graph.h,
// tree.h). No GPU and no CUDA call; nothing here reads the model. As a check
// it reproduces figures of heldout6.tsv (e.g. `csr powerlaw 131072 5 601`
// gives 45.4 / 0.93 for mxt-powerlaw, `graph powerlaw 16384 8` 7.6 / 0.63 and
// a list trip of 449 for wrank-powerlaw-8-b128, `tree skewed 20 7 50000`
// 15.2 / 12 / 0.70 for heavy-skewed-b32).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout7/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the mean trip of a child loop over the child's own list (sum deg^2 / sum deg,
//       heldout6's weight rank), and the mean trip of a child loop over the TARGET's list
//       (widest_cdp: the thread of edge v -> u walks u's out-list, so the mean over child threads
//       is sum over edges of deg(target) / edges)
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
// Skew: log(mean over groups of 32 consecutive items of the group's largest / overall mean) / log(32),
// 0 for equal lengths, 1 when each group's largest is 32 times the mean.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "../input_stats.h"

namespace {

using input_stats::mean_of;
using input_stats::skew_of;

int usage() {
  std::fprintf(stderr, "usage: see the comment at the top of heldout7/measure_inputs.cpp\n");
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  const std::string what = argv[1];
  if (what == "csr" && argc == 6) {
    size_t entries = 0;
    const std::vector<double> len = input_stats::csr_row_lengths(argv, &entries);
    std::printf("rows %zu entries %zu mean_len %.2f skew %.2f longest %.0f\n", len.size(), entries, mean_of(len),
                skew_of(len), *std::max_element(len.begin(), len.end()));
    return 0;
  }
  if (what == "graph" && argc == 5) {
    const graph::csr g = input_stats::make_graph(argv);
    const std::vector<double> deg = input_stats::out_degrees(g);
    double squares = 0, via_target = 0;
    for (double d : deg) squares += d * d;
    for (uint32_t e = 0; e < g.edges(); ++e) via_target += g.degree(g.targets[e]);
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f list_trip %.1f target_trip %.1f hub_deg %u\n",
                g.vertices, g.edges(), mean_of(deg), skew_of(deg), g.edges() ? squares / g.edges() : 0.0,
                g.edges() ? via_target / g.edges() : 0.0, g.degree(0));
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
