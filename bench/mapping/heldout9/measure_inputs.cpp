// Host-only: the sizes and skew that bench/mapping/heldout9.tsv gives the
// mapping model, measured on the inputs the ninth set's programs generate
// (the same generators and seeds: loops_harness.cuh's make_csr, graph.h,
// tree.h). No GPU and no CUDA call; nothing here reads the model. As a check
// it reproduces figures of heldout8.tsv (e.g. `csr powerlaw 262144 5 801`
// gives 44.6 / 0.93 for msbfs-powerlaw, `graph powerlaw 32768 16` 14.9 / 0.62
// for recip-powerlaw, `tree skewed 16 8 80000` 12.6 / 10 / 0.72 for
// sig-skewed-b32).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout9/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree, and for the two programs whose parent launches for some
//       vertices only, the share of vertices that launch and their mean out-degree: temporal_cdp
//       (vertices reached, drawn as the program draws them) and auction_bids_cdp (bidders not
//       yet assigned)
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order; and the share of nodes with children that have exactly
//       one (the chains patricia_depth does not count)
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout9/measure_inputs.cpp\n");
  return 2;
}

unsigned mix32(unsigned h) {  // the programs' hash
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
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
    double reached = 0, reached_deg = 0, bidding = 0, bidding_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v) {
      if (mix32(v * 0x85EBCA6Bu + 962u) & 1u) {  // temporal_cdp: reached
        reached += 1;
        reached_deg += g.degree(v);
      }
      if (mix32(v * 0x85EBCA6Bu + 972u) % 3u != 0) {  // auction_bids_cdp: not assigned
        bidding += 1;
        bidding_deg += g.degree(v);
      }
    }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u temporal_launching %.3f deg %.2f"
                " auction_launching %.3f deg %.2f\n",
                g.vertices, g.edges(), mean_of(deg), skew_of(deg), g.degree(0), reached / g.vertices,
                reached ? reached_deg / reached : 0.0, bidding / g.vertices, bidding ? bidding_deg / bidding : 0.0);
    return 0;
  }
  if (what == "tree" && argc == 6) {
    input_stats::print_tree(argv);
    tree::options o;
    o.kind = argv[2];
    o.degree = uint32_t(std::atol(argv[3]));
    o.depth = uint32_t(std::atol(argv[4]));
    o.max_nodes = uint32_t(std::atol(argv[5]));
    const tree::csr t = tree::make_tree(o);
    double inner = 0, single = 0;
    for (uint32_t v = 0; v < t.nodes; ++v) {
      inner += t.degree(v) > 0;
      single += t.degree(v) == 1;
    }
    std::printf("single_child_share %.3f\n", inner ? single / inner : 0.0);
    return 0;
  }
  return usage();
}
