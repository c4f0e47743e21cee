// Host-only: the sizes and skew that bench/mapping/heldout17.tsv gives the
// mapping model, measured on the inputs the seventeenth set's programs
// generate (the same generators and seeds: loops_harness.cuh's make_csr,
// graph.h, tree.h, and latest_start_cdp's and label_sig_cdp's own selections
// of launching vertices). No GPU and no CUDA call; nothing here reads the
// model. As a check it reproduces figures of heldout16.tsv (e.g. `csr
// powerlaw 196608 4 1601` gives 38.4 / 0.93 for xn-powerlaw-b64, `csr
// longrows 524288 24 1611` 25.4 / 0.28 for li-longrows-24-b512, `graph
// powerlaw 32768 16` 14.9 / 0.62 for bs-powerlaw, `tree skewed 16 8 60000`
// 12.73 / 0.71 for sx-skewed).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout17/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row,
//       and the seconds make_csr took
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree; for edge_place_cdp (vertices with out-edges launch),
//       latest_start_cdp (only pending vertices with out-edges launch) and label_sig_cdp (only
//       vertices labelled 0..7 with out-edges launch) the share of vertices that launch and their
//       mean out-degree
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
// Dense loops (acl_match, linf_template, track_length, steep_descent) have fixed trips given by
// their arguments or macros.
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout17/measure_inputs.cpp\n");
  return 2;
}

unsigned task_hash(unsigned v, unsigned salt) {  // latest_start_cdp's hash
  unsigned h = v * 0x9E3779B9u + salt;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return h;
}

bool pending(unsigned v) { return v == 0 || task_hash(v, 1761u) % 3u == 0u; }  // latest_start_cdp's

bool query_labelled(unsigned v) {  // label_sig_cdp's launching labels 0..7
  unsigned h = v * 0x9E3779B9u + 1771u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  return (h >> 27) < 8u;
}

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
    double all = 0, all_deg = 0, ls = 0, ls_deg = 0, lg = 0, lg_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v) {
      const double d = g.degree(v);
      if (d > 0) all += 1, all_deg += d;
      if (d > 0 && pending(v)) ls += 1, ls_deg += d;
      if (d > 0 && query_labelled(v)) lg += 1, lg_deg += d;
    }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u\n", g.vertices, g.edges(), mean_of(deg),
                skew_of(deg), g.degree(0));
    std::printf("edge_place launching %.3f deg %.2f\n", all / g.vertices, all ? all_deg / all : 0.0);
    std::printf("latest_start launching %.3f deg %.2f\n", ls / g.vertices, ls ? ls_deg / ls : 0.0);
    std::printf("label_sig launching %.3f deg %.2f (hub launches: %d)\n", lg / g.vertices, lg ? lg_deg / lg : 0.0,
                int(query_labelled(0)));
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
