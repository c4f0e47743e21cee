// Host-only: the sizes and skew that bench/mapping/heldout6.tsv gives the
// mapping model, measured on the inputs the sixth set's programs generate
// (the same generators and seeds: loops_harness.cuh's make_csr, graph.h,
// tree.h). No GPU and no CUDA call; nothing here reads the model. It also
// reproduces figures of heldout5.tsv (e.g. `csr powerlaw 98304 6 501` gives
// 52.8 / 0.92, `graph powerlaw 32768 12` 11.2 / 0.62, `tree skewed 24 6 40000`
// 18.2 / 14 / 0.70).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout6/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, and the mean trip of a child loop over the whole list (weight_rank_cdp: every
//       child thread of vertex v runs deg(v) iterations, so the mean over child threads is
//       sum deg^2 / sum deg)
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout6/measure_inputs.cpp\n");
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  const std::string what = argv[1];
  if (what == "csr" && argc == 6) {
    size_t entries = 0;
    const std::vector<double> len = input_stats::csr_row_lengths(argv, &entries);
    std::printf("rows %zu entries %zu mean_len %.2f skew %.2f\n", len.size(), entries, mean_of(len), skew_of(len));
    return 0;
  }
  if (what == "graph" && argc == 5) {
    const graph::csr g = input_stats::make_graph(argv);
    const std::vector<double> deg = input_stats::out_degrees(g);
    double squares = 0;
    for (double d : deg) squares += d * d;
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f list_trip %.1f hub_deg %u\n", g.vertices, g.edges(),
                mean_of(deg), skew_of(deg), g.edges() ? squares / g.edges() : 0.0, g.degree(0));
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
