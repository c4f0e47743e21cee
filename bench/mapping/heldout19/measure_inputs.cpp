// Host-only: the sizes and skew that bench/mapping/heldout19.tsv gives the
// mapping model, measured on the inputs the nineteenth set's programs
// generate (the same generators and seeds: loops_harness.cuh's make_csr,
// graph.h, tree.h, and edge_gap_cdp's and seed_reach_cdp's own selections of
// launching vertices). No GPU and no CUDA call; nothing here reads the
// model. As a check it reproduces figures of heldout18.tsv (e.g. `csr
// powerlaw 147456 4 1801` gives 34.2 / 0.93 for ra-powerlaw-b256, `csr
// longrows 524288 20 1821` 21.3 / 0.31 for cc-longrows-20-b64, `graph
// powerlaw 32768 24` 64.8% launching for vp-powerlaw-24-b256, `tree skewed
// 24 7 90000` 18.88 / 0.72 for ds-skewed-b128).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout19/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row,
//       and the seconds make_csr took
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree; for rank_in_cdp and far_target_cdp (every vertex with out-edges
//       launches), edge_gap_cdp (only vertices with 1 to 16 out-edges launch) and seed_reach_cdp (only
//       the seeds, one in eight by a hash, with out-edges launch) the share of vertices that launch and
//       their mean out-degree
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
// Dense loops (low_glucose, wind_gust, tax_lots, sat_tile, fastest_replica, earliest_deadline) have
// fixed trips given by their arguments or macros.
// Skew: log(mean over groups of 32 consecutive items of the group's largest / overall mean) / log(32),
// 0 for equal lengths, 1 when each group's largest is 32 times the mean.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../input_stats.h"

namespace {

using input_stats::mean_of;
using input_stats::skew_of;

int usage() {
  std::fprintf(stderr, "usage: see the comment at the top of heldout19/measure_inputs.cpp\n");
  return 2;
}

bool is_seed(unsigned v) {  // seed_reach_cdp's, with its seed 2001
  unsigned x = v * 0x9E3779B9u + 2001u;
  x ^= x >> 16;
  x *= 0x21F0AAADu;
  x ^= x >> 15;
  x *= 0x735A2D97u;
  x ^= x >> 15;
  return (x & 7u) == 0u;
}

const unsigned gap_max = 16;  // edge_gap_cdp's max_deg

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  const std::string what = argv[1];
  if (what == "csr" && argc == 6) {
    size_t entries = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<double> len = input_stats::csr_row_lengths(argv, &entries);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("rows %zu entries %zu mean_len %.2f skew %.2f longest %.0f make_csr %.2f s\n", len.size(), entries,
                mean_of(len), skew_of(len), *std::max_element(len.begin(), len.end()), secs);
    return 0;
  }
  if (what == "graph" && argc == 5) {
    const graph::csr g = input_stats::make_graph(argv);
    const std::vector<double> deg = input_stats::out_degrees(g);
    double all = 0, all_deg = 0, eg = 0, eg_deg = 0, sr = 0, sr_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v) {
      const double d = g.degree(v);
      if (d > 0) all += 1, all_deg += d;
      if (d > 0 && d <= gap_max) eg += 1, eg_deg += d;
      if (d > 0 && is_seed(v)) sr += 1, sr_deg += d;
    }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u\n", g.vertices, g.edges(), mean_of(deg),
                skew_of(deg), g.degree(0));
    std::printf("rank_in / far_target launching %.3f deg %.2f\n", all / g.vertices, all ? all_deg / all : 0.0);
    std::printf("edge_gap launching %.3f deg %.2f\n", eg / g.vertices, eg ? eg_deg / eg : 0.0);
    std::printf("seed_reach launching %.3f deg %.2f (hub launches: %d)\n", sr / g.vertices, sr ? sr_deg / sr : 0.0,
                int(is_seed(0)));
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
