// Host-only: the sizes and skew that bench/mapping/heldout20.tsv gives the
// mapping model, measured on the inputs the twentieth set's programs
// generate (the same generators and seeds: loops_harness.cuh's make_csr,
// graph.h, tree.h, and min_succ_cdp's and contact_trace_cdp's own selections
// of launching vertices). No GPU and no CUDA call; nothing here reads the
// model. As a check it reproduces figures of heldout19.tsv (e.g. `csr
// powerlaw 163840 4 1901` gives 34.7 / 0.93 for bp-powerlaw-b512, `csr
// longrows 524288 16 1921` 17.3 / 0.35 for vs-longrows-16-b256, `graph
// powerlaw 32768 20` 62.4% launching for ri-powerlaw-20-b256, `tree skewed
// 20 8 100000` 15.50 / 0.72 for dh-skewed-b128).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout20/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row,
//       and the seconds make_csr took
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree; for xor_in_cdp and degree_product_cdp (every vertex with
//       out-edges launches), min_succ_cdp (only vertices with 8 or more out-edges launch) and
//       contact_trace_cdp (only the infected, one in four by a hash, with out-edges launch) the share
//       of vertices that launch and their mean out-degree
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
// Dense loops (battery_cells, frame_drops, invoice_net, drone_alt, busiest_hour, rain_gauge) have
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout20/measure_inputs.cpp\n");
  return 2;
}

bool is_infected(unsigned v) {  // contact_trace_cdp's, with its seed 2091
  unsigned x = v * 0x9E3779B9u + 2091u;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  x *= 0x297A2D39u;
  x ^= x >> 15;
  return (x & 3u) == 0u;
}

const unsigned succ_min = 8;  // min_succ_cdp's min_deg

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
    double all = 0, all_deg = 0, ms = 0, ms_deg = 0, ct = 0, ct_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v) {
      const double d = g.degree(v);
      if (d > 0) all += 1, all_deg += d;
      if (d >= succ_min) ms += 1, ms_deg += d;
      if (d > 0 && is_infected(v)) ct += 1, ct_deg += d;
    }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u\n", g.vertices, g.edges(), mean_of(deg),
                skew_of(deg), g.degree(0));
    std::printf("xor_in / degree_product launching %.3f deg %.2f\n", all / g.vertices, all ? all_deg / all : 0.0);
    std::printf("min_succ launching %.3f deg %.2f\n", ms / g.vertices, ms ? ms_deg / ms : 0.0);
    std::printf("contact_trace launching %.3f deg %.2f (hub launches: %d)\n", ct / g.vertices,
                ct ? ct_deg / ct : 0.0, int(is_infected(0)));
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
