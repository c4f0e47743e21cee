// Host-only: the sizes and skew that bench/mapping/heldout10.tsv gives the
// mapping model, measured on the inputs the tenth set's programs generate
// (the same generators and seeds: loops_harness.cuh's make_csr, graph.h,
// tree.h, and the programs' own index arithmetic). No GPU and no CUDA call;
// nothing here reads the model. As a check it reproduces figures of
// heldout9.tsv (e.g. `csr powerlaw 196608 5 901` gives 45.0 / 0.93 for
// wpr-powerlaw, `graph powerlaw 32768 16` 14.9 / 0.62 for temporal-powerlaw,
// `tree skewed 6 10 60000` 5.28 / 4 / 0.71 for pat-skewed-b32).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout10/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree, and for cascade_cdp, whose parent launches for the active
//       vertices only, the share of vertices that launch and their mean out-degree
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
//   measure_inputs acf SIGNALS LEN MAXLAG
//       autocorr's threads: mean trip (len - lag) and skew of the trips in thread order
//   measure_inputs sad MBS_X MBS_Y BS RANGE
//       block_sad's threads and their (fixed) trip bs * bs
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout10/measure_inputs.cpp\n");
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
    double active = 0, active_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v)
      if ((mix32(v * 0x85EBCA6Bu + 1062u) & 3u) == 0) {  // cascade_cdp: ACTIVE
        active += 1;
        active_deg += g.degree(v);
      }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u cascade_launching %.3f deg %.2f\n",
                g.vertices, g.edges(), mean_of(deg), skew_of(deg), g.degree(0), active / g.vertices,
                active ? active_deg / active : 0.0);
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  if (what == "acf" && argc == 5) {
    const long nsig = std::atol(argv[2]), len = std::atol(argv[3]), maxlag = std::atol(argv[4]);
    std::vector<double> trips(size_t(nsig * maxlag));
    for (long t = 0; t < nsig * maxlag; ++t) trips[size_t(t)] = double(len - t % maxlag);
    std::printf("threads %zu mean_trip %.1f skew %.3f\n", trips.size(), mean_of(trips), skew_of(trips));
    return 0;
  }
  if (what == "sad" && argc == 6) {
    const long mx = std::atol(argv[2]), my = std::atol(argv[3]), bs = std::atol(argv[4]), r = std::atol(argv[5]);
    std::printf("threads %ld trip %ld\n", mx * my * (2 * r + 1) * (2 * r + 1), bs * bs);
    return 0;
  }
  return usage();
}
