// Host-only: the sizes and skew that bench/mapping/heldout18.tsv gives the
// mapping model, measured on the inputs the eighteenth set's programs
// generate (the same generators and seeds: loops_harness.cuh's make_csr,
// graph.h, tree.h, and edge_sample_cdp's and hub_adjacent_cdp's own
// selections of launching vertices). No GPU and no CUDA call; nothing here
// reads the model. As a check it reproduces figures of heldout17.tsv (e.g.
// `csr powerlaw 163840 4 1701` gives 33.3 / 0.93 for ss-powerlaw-b64, `csr
// longrows 786432 24 1711` 25.9 / 0.35 for me-longrows-24-b512, `graph
// powerlaw 32768 28` 66.7% launching for ep-powerlaw-28-b512, `tree skewed
// 20 7 80000` 15.75 / 0.72 for ec-skewed-b128).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout18/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row,
//       and the seconds make_csr took
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree; for vote_push_cdp and cheapest_exit_cdp (every vertex with
//       out-edges launches), edge_sample_cdp (only the batch's vertices, one in four by a hash, with
//       out-edges launch) and hub_adjacent_cdp (only vertices with at least 48 out-edges launch) the
//       share of vertices that launch and their mean out-degree
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
// Dense loops (bit_errors, queue_depth, portfolio_ret, sonar_echo, ev_charge, seal_check) have fixed
// trips given by their arguments or macros.
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout18/measure_inputs.cpp\n");
  return 2;
}

unsigned sample_hash(unsigned x) {  // edge_sample_cdp's hash
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 15;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x;
}

bool in_batch(unsigned v) { return sample_hash(v * 0x9E3779B9u + 1901u) % 4u == 0u; }  // edge_sample_cdp's

const unsigned hub_min = 48;  // hub_adjacent_cdp's HUB_MIN

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
    double all = 0, all_deg = 0, es = 0, es_deg = 0, ha = 0, ha_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v) {
      const double d = g.degree(v);
      if (d > 0) all += 1, all_deg += d;
      if (d > 0 && in_batch(v)) es += 1, es_deg += d;
      if (d >= hub_min) ha += 1, ha_deg += d;
    }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u\n", g.vertices, g.edges(), mean_of(deg),
                skew_of(deg), g.degree(0));
    std::printf("vote_push / cheapest_exit launching %.3f deg %.2f\n", all / g.vertices, all ? all_deg / all : 0.0);
    std::printf("edge_sample launching %.3f deg %.2f (hub launches: %d)\n", es / g.vertices, es ? es_deg / es : 0.0,
                int(in_batch(0)));
    std::printf("hub_adjacent launching %.3f deg %.2f\n", ha / g.vertices, ha ? ha_deg / ha : 0.0);
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
