// Host-only: the sizes and skew that bench/mapping/heldout14.tsv gives the
// mapping model, measured on the inputs the fourteenth set's programs
// generate (the same generators and seeds: loops_harness.cuh's make_csr,
// graph.h, tree.h, and rich_club_cdp's and cut_edges_cdp's own selection of
// launching vertices). No GPU and no CUDA call; nothing here reads the model.
// As a check it reproduces figures of heldout13.tsv (e.g. `csr powerlaw
// 196608 4 1301` gives 35.1 / 0.93 for am-powerlaw-b64, `csr longrows 655360
// 20 1311` 21.7 / 0.35 for skill-longrows-20-b32, `graph powerlaw 32768 16`
// 14.9 / 0.62 for bfsp-powerlaw-b256, `graph regular 32768 20` 18.6 / 0.07
// for bfsp-regular-20-b64, `tree skewed 14 8 60000` 11.03 / 0.71 for
// bloom-skewed).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout14/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree; for in_digest_cdp (vertices with out-edges launch),
//       rich_club_cdp (only vertices of out-degree 16 or more launch) and cut_edges_cdp (only
//       vertices outside partition 0 with out-edges launch) the share of vertices that launch
//       and their mean out-degree
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
// Dense loops (pinball_loss, sensor_floor) have fixed trips given by their arguments or macros.
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout14/measure_inputs.cpp\n");
  return 2;
}

unsigned char part_of(unsigned v) {  // cut_edges_cdp's partitions
  unsigned h = v * 0x9E3779B9u + 1481u;
  h ^= h >> 16;
  h *= 0x846CA68Bu;
  h ^= h >> 13;
  return (unsigned char)(v == 0 ? 1u : h & 3u);
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
    double id = 0, id_deg = 0, rc = 0, rc_deg = 0, ce = 0, ce_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v) {
      const double d = g.degree(v);
      if (d > 0) id += 1, id_deg += d;
      if (d >= 16) rc += 1, rc_deg += d;
      if (d > 0 && part_of(v) != 0) ce += 1, ce_deg += d;
    }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u\n", g.vertices, g.edges(), mean_of(deg),
                skew_of(deg), g.degree(0));
    std::printf("in_digest launching %.3f deg %.2f\n", id / g.vertices, id ? id_deg / id : 0.0);
    std::printf("rich_club launching %.3f deg %.2f\n", rc / g.vertices, rc ? rc_deg / rc : 0.0);
    std::printf("cut_edges launching %.3f deg %.2f\n", ce / g.vertices, ce ? ce_deg / ce : 0.0);
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
