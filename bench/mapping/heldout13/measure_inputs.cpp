// Host-only: the sizes and skew that bench/mapping/heldout13.tsv gives the
// mapping model, measured on the inputs the thirteenth set's programs
// generate (the same generators and seeds: loops_harness.cuh's make_csr,
// graph.h, tree.h, and bfs_parent_cdp's and walk_prob_cdp's own selection of
// launching vertices). No GPU and no CUDA call; nothing here reads the model.
// As a check it reproduces figures of heldout12.tsv (e.g. `csr powerlaw
// 196608 4 1201` gives 32.7 / 0.92 for sph-powerlaw-b64, `csr longrows 327680
// 20 1211` 20.9 / 0.23 for mis-longrows-20-b32, `graph powerlaw 32768 16`
// 14.9 / 0.62 for transpose-powerlaw, `graph regular 32768 24` 22.3 / 0.07
// for commw-regular-24-b64).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout13/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree; for bfs_parent_cdp (only frontier vertices launch) and
//       walk_prob_cdp (only vertices with two or more out-edges launch) the share of vertices
//       that launch and their mean out-degree
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
// Dense loops (mixture_pdf, raid_parity) have fixed trips given by their arguments or macros.
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout13/measure_inputs.cpp\n");
  return 2;
}

bool bfs_frontier(unsigned v) {  // bfs_parent_cdp's frontier
  unsigned h = v * 0x9E3779B9u + 1371u;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return v == 0 || h % 100u < 30u;
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
    double bfs = 0, bfs_deg = 0, wp = 0, wp_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v) {
      if (bfs_frontier(v)) bfs += 1, bfs_deg += g.degree(v);
      if (g.degree(v) > 1) wp += 1, wp_deg += g.degree(v);
    }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u\n", g.vertices, g.edges(), mean_of(deg),
                skew_of(deg), g.degree(0));
    std::printf("bfs_parent launching %.3f deg %.2f\n", bfs / g.vertices, bfs ? bfs_deg / bfs : 0.0);
    std::printf("walk_prob launching %.3f deg %.2f\n", wp / g.vertices, wp ? wp_deg / wp : 0.0);
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
