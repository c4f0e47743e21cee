// Host-only: the sizes and skew that bench/mapping/heldout11.tsv gives the
// mapping model, measured on the inputs the eleventh set's programs generate
// (the same generators and seeds: loops_harness.cuh's make_csr, graph.h,
// tree.h, and the programs' own selection of launching vertices). No GPU and
// no CUDA call; nothing here reads the model. As a check it reproduces
// figures of heldout10.tsv (e.g. `csr powerlaw 196608 4 1001` gives 33.4 /
// 0.93 for bm25-powerlaw, `graph powerlaw 32768 16` 14.9 / 0.62 for
// cascade-powerlaw, `tree skewed 8 9 50000` 6.62 / 5 / 0.69 for
// pmk-skewed-b128).
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -Itests/fixtures/loops -Iexamples/graph \
//       -Iexamples/trees -Iruntime/include bench/mapping/heldout11/measure_inputs.cpp -o measure_inputs
//   measure_inputs csr powerlaw|regular|longrows ROWS AVG SEED
//       rows, entries, mean row length (a CSR row loop's trip), skew of the row lengths, longest row
//   measure_inputs graph powerlaw|regular NV DEG
//       mean out-degree over all vertices (a child grid's size per parent thread), skew of the
//       out-degrees, the hub's degree; for path_count_cdp (only the vertices of the widest BFS level
//       launch) and gossip_cdp (only the vertices holding the rumour launch) the share of vertices
//       that launch and their mean out-degree
//   measure_inputs tree regular|skewed DEGREE DEPTH MAXNODES
//       nodes, mean child count of a node with children, root degree, skew over the nodes with
//       children in breadth-first order
// Dense loops (bond_pv, hist_intersect, bilateral) have fixed trips given by their arguments.
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
  std::fprintf(stderr, "usage: see the comment at the top of heldout11/measure_inputs.cpp\n");
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
    // path_count_cdp: BFS levels from vertex 0, the widest level launches.
    std::vector<int> depth(g.vertices, -1);
    std::vector<uint32_t> frontier{0u}, next;
    std::vector<size_t> level_size{1};
    depth[0] = 0;
    for (int d = 0; !frontier.empty(); ++d) {
      next.clear();
      for (uint32_t v : frontier)
        for (uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
          if (depth[g.targets[e]] < 0) {
            depth[g.targets[e]] = d + 1;
            next.push_back(g.targets[e]);
          }
      if (!next.empty()) level_size.push_back(next.size());
      frontier.swap(next);
    }
    int level = 0;
    for (size_t d = 0; d < level_size.size(); ++d)
      if (level_size[d] > level_size[size_t(level)]) level = int(d);
    double lv = 0, lv_deg = 0, gs = 0, gs_deg = 0;
    for (uint32_t v = 0; v < g.vertices; ++v) {
      if (depth[v] == level) {
        lv += 1;
        lv_deg += g.degree(v);
      }
      if (mix32(v * 0xC2B2AE35u + 1171u) % 3u == 0u) {  // gossip_cdp: holds the rumour
        gs += 1;
        gs_deg += g.degree(v);
      }
    }
    std::printf("vertices %u edges %u mean_deg %.2f skew %.2f hub_deg %u\n", g.vertices, g.edges(), mean_of(deg),
                skew_of(deg), g.degree(0));
    std::printf("path_count level %d (of %zu) launching %.3f deg %.2f; gossip launching %.3f deg %.2f\n", level,
                level_size.size(), lv / g.vertices, lv ? lv_deg / lv : 0.0, gs / g.vertices, gs ? gs_deg / gs : 0.0);
    return 0;
  }
  if (what == "tree" && argc == 6) return input_stats::print_tree(argv);
  return usage();
}
