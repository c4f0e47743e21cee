// Host-only: the sizes and skew that bench/mapping/heldout16.tsv gives the
// mapping model, measured on the inputs the sixteenth set's programs
// generate (the same generators and seeds: loops_harness.cuh's make_csr,
// graph.h, tree.h, and frontier_mark_cdp's own selection of launching
// vertices). No GPU and no CUDA call; nothing here reads the model.
// As a check it reproduces figures of heldout15.tsv (e.g. `csr powerlaw
// 196608 4 1501` gives 36.6 / 0.93 for cpm-powerlaw-b64, `csr longrows 524288
// 24 1511` 25.4 / 0.28 for ln-longrows-24-b32, `graph powerlaw 32768 24` 22.3 /
// 0.62 for si-powerlaw-b64, `graph regular 32768 16` 14.9 / 0.09 for
// slack-regular-16-b256, `tree skewed 12 8 60000` 9.51 / 0.71 for ttl-skewed).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout16/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree; for bigger_succ_cdp and edge_key_cdp (vertices with
//       out-edges launch) and frontier_mark_cdp (only frontier vertices with out-edges launch)
//       the share of vertices that launch and their mean out-degree
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
// Dense loops (spectrum_peak, geofence_all, meter_bill, taxi_eta) have fixed trips given by their
// arguments or macros.
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout16/measure_inputs.cpp\n");
  return 2;
}

bool in_frontier(unsigned v) {  // frontier_mark_cdp's frontier vertices
  unsigned h = v * 0x9E3779B9u + 1661u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return v == 0 || h % 4u == 0u;
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
    double all = 0, all_deg = 0, fm = 0, fm_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v) {
      const double d = g.degree(v);
      if (d > 0) all += 1, all_deg += d;
      if (d > 0 && in_frontier(v)) fm += 1, fm_deg += d;
    }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u\n", g.vertices, g.edges(), mean_of(deg),
                skew_of(deg), g.degree(0));
    std::printf("bigger_succ/edge_key launching %.3f deg %.2f\n", all / g.vertices, all ? all_deg / all : 0.0);
    std::printf("frontier_mark launching %.3f deg %.2f\n", fm / g.vertices, fm ? fm_deg / fm : 0.0);
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
