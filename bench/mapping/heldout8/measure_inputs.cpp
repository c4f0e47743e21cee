// Host-only: the sizes and skew that bench/mapping/heldout8.tsv gives the
// mapping model, measured on the inputs the eighth set's programs generate
// (the same generators and seeds: loops_harness.cuh's make_csr, graph.h,
// tree.h). No GPU and no CUDA call; nothing here reads the model. As a check
// it reproduces figures of heldout7.tsv (e.g. `csr powerlaw 131072 6 701`
// gives 56.5 / 0.93 for lpa-powerlaw, `graph powerlaw 32768 12` 11.2 / 0.62
// for relabel-powerlaw and `graph powerlaw 16384 8` a target trip of 277 for
// wide-powerlaw-8-b128, `tree skewed 24 7 60000` 18.2 / 14 / 0.70 for
// kind-skewed-b32).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout8/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the mean trip of a child loop over the TARGET's list (sum over edges of
//       deg(target) / edges), and the mean trip of reciprocity_cdp's binary search over the
//       target's sorted list (run exactly as the child runs it, counted per edge, over the edges)
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout8/measure_inputs.cpp\n");
  return 2;
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
    graph::csr g = input_stats::make_graph(argv);
    for (uint32_t v = 0; v < g.vertices; ++v)
      std::sort(g.targets.begin() + g.offsets[v], g.targets.begin() + g.offsets[v + 1]);
    const std::vector<double> deg = input_stats::out_degrees(g);
    double via_target = 0, search_steps = 0, mutual = 0;
    for (uint32_t v = 0; v < g.vertices; ++v)
      for (uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
        const uint32_t u = g.targets[e];
        via_target += g.degree(u);
        uint32_t lo = g.offsets[u], hi = g.offsets[u + 1];
        while (lo < hi) {  // reciprocity_cdp's loop, step for step
          const uint32_t mid = lo + (hi - lo) / 2;
          if (g.targets[mid] < v) lo = mid + 1;
          else hi = mid;
          search_steps += 1;
        }
        mutual += lo < g.offsets[u + 1] && g.targets[lo] == v;
      }
    const double ne = g.edges();
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f target_trip %.1f search_trip %.2f reciprocated %.0f hub_deg %u\n",
                g.vertices, g.edges(), mean_of(deg), skew_of(deg), ne ? via_target / ne : 0.0,
                ne ? search_steps / ne : 0.0, mutual, g.degree(0));
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
