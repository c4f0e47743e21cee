// Host-only: the sizes and skew that bench/mapping/heldout15.tsv gives the
// mapping model, measured on the inputs the fifteenth set's programs
// generate (the same generators and seeds: loops_harness.cuh's make_csr,
// graph.h, tree.h, and sink_feed_cdp's and edge_slack_cdp's own selection of
// launching vertices). No GPU and no CUDA call; nothing here reads the model.
// As a check it reproduces figures of heldout14.tsv (e.g. `csr powerlaw
// 196608 4 1401` gives 37.7 / 0.93 for sat-powerlaw-b64, `csr longrows 655360
// 20 1401` 21.6 / 0.35 for sat-longrows-20, `graph powerlaw 32768 16` 14.9 /
// 0.62 for dig-powerlaw-b256, `graph regular 32768 20` 18.6 / 0.07 for
// dig-regular-20-b32, `tree skewed 14 8 60000` 11.03 / 0.71 for lat-skewed).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout15/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree; for strongest_in_cdp (vertices with out-edges launch),
//       sink_feed_cdp (only active vertices with out-edges launch) and edge_slack_cdp (only
//       reached vertices with out-edges launch) the share of vertices that launch and their mean
//       out-degree
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
// Dense loops (q8_gemv, countmin_query, obstacle_hit, epoch_power) have fixed trips given by their
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout15/measure_inputs.cpp\n");
  return 2;
}

bool is_active(unsigned v) {  // sink_feed_cdp's active vertices
  unsigned h = v * 0x9E3779B9u + 1571u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return v == 0 || h % 5u < 2u;
}

bool is_reached(unsigned v) {  // edge_slack_cdp's reached vertices (distance below INF)
  unsigned h = v * 0x9E3779B9u + 1581u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return v == 0 || !(h % 10u < 3u);
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
    double si = 0, si_deg = 0, sk = 0, sk_deg = 0, es = 0, es_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v) {
      const double d = g.degree(v);
      if (d > 0) si += 1, si_deg += d;
      if (d > 0 && is_active(v)) sk += 1, sk_deg += d;
      if (d > 0 && is_reached(v)) es += 1, es_deg += d;
    }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u\n", g.vertices, g.edges(), mean_of(deg),
                skew_of(deg), g.degree(0));
    std::printf("strongest_in launching %.3f deg %.2f\n", si / g.vertices, si ? si_deg / si : 0.0);
    std::printf("sink_feed launching %.3f deg %.2f\n", sk / g.vertices, sk ? sk_deg / sk : 0.0);
    std::printf("edge_slack launching %.3f deg %.2f\n", es / g.vertices, es ? es_deg / es : 0.0);
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
