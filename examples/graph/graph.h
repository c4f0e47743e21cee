// Host-only support shared by the graph example programs (neighbour_sum, bfs,
// sssp) and their flat and rewritten variants: seeded graph generators, CSR
// build, graph and result file I/O, the common command line, and timing
// statistics. No CUDA in here, so the rewriters never need to touch it.
//
// Every generated graph, whatever its kind, contains the inputs the
// equivalence tests need: zero-degree vertices (every vertex v with
// v % 13 == 7 has no out-edges) and one hub (vertex 0) whose degree
// (kHubDegree) needs more than one child block in every dimension the
// examples use.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace graph {

// Degree of vertex 0: > 2 blocks of 1024 threads, > 1 block of 64-wide rows x 4.
inline constexpr uint32_t kHubDegree = 3 * 1024 + 7;
inline constexpr uint32_t kZeroDegreeModulus = 13;
inline constexpr uint32_t kZeroDegreeResidue = 7;
inline constexpr uint32_t kMaxWeight = 100;

struct csr {
  uint32_t vertices = 0;
  std::vector<uint32_t> offsets;  // vertices + 1 entries
  std::vector<uint32_t> targets;  // edges
  std::vector<uint32_t> weights;  // edges, in [1, kMaxWeight]
  uint32_t edges() const { return static_cast<uint32_t>(targets.size()); }
  uint32_t degree(uint32_t v) const { return offsets[v + 1] - offsets[v]; }
};

// splitmix64: small, fast and specified exactly, so graphs are identical on
// every platform and standard library (std:: distributions are not).
class rng {
 public:
  explicit rng(uint64_t seed) : state_(seed ^ 0x9E3779B97F4A7C15ull) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>((next() >> 32) * n >> 32); }
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  uint64_t state_;
};

struct edge {
  uint32_t src, dst, weight;
};

inline bool forced_zero_degree(uint32_t v) { return v % kZeroDegreeModulus == kZeroDegreeResidue; }

// Builds the CSR from an edge list, keeping each vertex's edges in generation
// order (a stable counting sort), after applying the shared features: no edges
// out of forced zero-degree vertices, and the hub's extra edges.
inline csr build_csr(uint32_t n, std::vector<edge> edges, rng& r) {
  if (n == 0) throw std::runtime_error("graph must have at least one vertex");
  edges.erase(std::remove_if(edges.begin(), edges.end(), [](const edge& e) { return forced_zero_degree(e.src); }),
              edges.end());
  for (uint32_t k = 0; k < kHubDegree; ++k) edges.push_back({0, r.below(n), 1 + r.below(kMaxWeight)});
  if (edges.size() > 0xffffffffull) throw std::runtime_error("too many edges for 32-bit CSR offsets");
  csr g;
  g.vertices = n;
  g.offsets.assign(n + 1, 0);
  for (const edge& e : edges) ++g.offsets[e.src + 1];
  for (uint32_t v = 0; v < n; ++v) g.offsets[v + 1] += g.offsets[v];
  g.targets.resize(edges.size());
  g.weights.resize(edges.size());
  std::vector<uint32_t> cursor(g.offsets.begin(), g.offsets.end() - 1);
  for (const edge& e : edges) {
    const uint32_t at = cursor[e.src]++;
    g.targets[at] = e.dst;
    g.weights[at] = e.weight;
  }
  return g;
}

// Power-law graph: R-MAT (a, b, c, d) = (0.57, 0.19, 0.19, 0.05) with
// n * avg_degree directed edges; vertex ids >= n are redrawn.
inline csr generate_powerlaw(uint32_t n, uint32_t avg_degree, uint64_t seed) {
  if (n == 0) throw std::runtime_error("--vertices must be at least 1");
  rng r(seed);
  uint32_t scale = 0;
  while ((1ull << scale) < n) ++scale;
  const uint64_t m = static_cast<uint64_t>(n) * avg_degree;
  std::vector<edge> edges;
  edges.reserve(m + kHubDegree);
  auto draw_vertex_pair = [&](uint32_t& s, uint32_t& d) {
    do {
      s = d = 0;
      for (uint32_t level = 0; level < scale; ++level) {
        const double p = r.unit();
        const uint32_t bit = 1u << (scale - 1 - level);
        if (p < 0.57) {
        } else if (p < 0.76) {
          d |= bit;
        } else if (p < 0.95) {
          s |= bit;
        } else {
          s |= bit;
          d |= bit;
        }
      }
    } while (s >= n || d >= n);
  };
  for (uint64_t k = 0; k < m; ++k) {
    uint32_t s, d;
    draw_vertex_pair(s, d);
    edges.push_back({s, d, 1 + r.below(kMaxWeight)});
  }
  return build_csr(n, std::move(edges), r);
}

// Near-regular graph: every vertex has degree - 1, degree or degree + 1
// uniformly random out-neighbours.
inline csr generate_regular(uint32_t n, uint32_t degree, uint64_t seed) {
  if (n == 0) throw std::runtime_error("--vertices must be at least 1");
  rng r(seed);
  std::vector<edge> edges;
  edges.reserve(static_cast<size_t>(n) * (degree + 1) + kHubDegree);
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t d = degree == 0 ? r.below(2) : degree - 1 + r.below(3);
    for (uint32_t k = 0; k < d; ++k) edges.push_back({v, r.below(n), 1 + r.below(kMaxWeight)});
  }
  return build_csr(n, std::move(edges), r);
}

// ---- graph files: "NSTGRPH1", vertices, edges, offsets, targets, weights (u32 LE) ----

inline void write_graph(const std::string& path, const csr& g) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write graph file '" + path + "'");
  const uint32_t header[2] = {g.vertices, g.edges()};
  f.write("NSTGRPH1", 8);
  f.write(reinterpret_cast<const char*>(header), sizeof header);
  f.write(reinterpret_cast<const char*>(g.offsets.data()), g.offsets.size() * 4);
  f.write(reinterpret_cast<const char*>(g.targets.data()), g.targets.size() * 4);
  f.write(reinterpret_cast<const char*>(g.weights.data()), g.weights.size() * 4);
  if (!f) throw std::runtime_error("error while writing graph file '" + path + "'");
}

inline csr read_graph(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open graph file '" + path + "'");
  char magic[8];
  uint32_t header[2];
  if (!f.read(magic, 8) || std::memcmp(magic, "NSTGRPH1", 8) != 0)
    throw std::runtime_error("'" + path + "' is not a Nestor graph file (bad magic)");
  if (!f.read(reinterpret_cast<char*>(header), sizeof header))
    throw std::runtime_error("'" + path + "': truncated header");
  csr g;
  g.vertices = header[0];
  if (g.vertices == 0) throw std::runtime_error("'" + path + "': graph has no vertices");
  g.offsets.resize(static_cast<size_t>(g.vertices) + 1);
  g.targets.resize(header[1]);
  g.weights.resize(header[1]);
  auto read_array = [&](std::vector<uint32_t>& a, const char* what) {
    if (!f.read(reinterpret_cast<char*>(a.data()), a.size() * 4))
      throw std::runtime_error("'" + path + "': truncated " + what + " array");
  };
  read_array(g.offsets, "offsets");
  read_array(g.targets, "targets");
  read_array(g.weights, "weights");
  if (g.offsets[0] != 0 || g.offsets[g.vertices] != header[1])
    throw std::runtime_error("'" + path + "': offsets do not span the edge array");
  for (uint32_t v = 0; v < g.vertices; ++v)
    if (g.offsets[v + 1] < g.offsets[v]) throw std::runtime_error("'" + path + "': offsets decrease");
  for (uint32_t t : g.targets)
    if (t >= g.vertices) throw std::runtime_error("'" + path + "': edge target out of range");
  for (uint32_t w : g.weights)
    if (w == 0 || w > kMaxWeight) throw std::runtime_error("'" + path + "': edge weight out of range");
  return g;
}

// Results are written as text, one value per line, so files compare exactly
// and differences are readable.
template <class T>
inline void write_result(const std::string& path, const std::vector<T>& values) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write result file '" + path + "'");
  for (const T& v : values) std::fprintf(f, "%llu\n", static_cast<unsigned long long>(v));
  if (std::fclose(f) != 0) throw std::runtime_error("error while writing result file '" + path + "'");
}

// ---- command line ----

struct options {
  std::string graph = "powerlaw";  // powerlaw | regular
  std::string graph_file;          // read this graph instead of generating one
  std::string save_graph;          // also write the graph used here
  uint32_t vertices = 65536;
  uint32_t degree = 31;  // average (power-law) or nominal (regular) out-degree
  uint64_t seed = 1;
  std::string out;  // result file (none when empty)
  int reps = 5;
};

inline const char* usage() {
  return "usage: PROGRAM [--graph powerlaw|regular] [--vertices N] [--degree D] [--seed S]\n"
         "               [--graph-file FILE] [--save-graph FILE] [--out FILE] [--reps R]\n";
}

inline uint64_t parse_number(const std::string& flag, const char* text, uint64_t lo, uint64_t hi) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || v < lo || v > hi)
    throw std::runtime_error(flag + " expects an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                             "], got '" + text + "'");
  return v;
}

// Throws std::runtime_error with a one-line reason on bad input.
inline options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(usage(), stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) throw std::runtime_error("missing value after " + flag);
    const char* value = argv[++i];
    if (flag == "--graph") {
      o.graph = value;
      if (o.graph != "powerlaw" && o.graph != "regular")
        throw std::runtime_error("--graph expects powerlaw or regular, got '" + o.graph + "'");
    } else if (flag == "--graph-file") {
      o.graph_file = value;
    } else if (flag == "--save-graph") {
      o.save_graph = value;
    } else if (flag == "--vertices") {
      o.vertices = static_cast<uint32_t>(parse_number(flag, value, 1, 1u << 28));
    } else if (flag == "--degree") {
      o.degree = static_cast<uint32_t>(parse_number(flag, value, 0, 4096));
    } else if (flag == "--seed") {
      o.seed = parse_number(flag, value, 0, ~0ull);
    } else if (flag == "--out") {
      o.out = value;
    } else if (flag == "--reps") {
      o.reps = static_cast<int>(parse_number(flag, value, 1, 1000));
    } else {
      throw std::runtime_error("unknown option " + flag);
    }
  }
  return o;
}

inline csr make_graph(const options& o) {
  csr g = !o.graph_file.empty()    ? read_graph(o.graph_file)
          : o.graph == "regular" ? generate_regular(o.vertices, o.degree, o.seed)
                                 : generate_powerlaw(o.vertices, o.degree, o.seed);
  if (!o.save_graph.empty()) write_graph(o.save_graph, g);
  return g;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// One line the bench parses: key=value pairs.
inline void print_result_line(const char* program, const options& o, const csr& g, double median_ms,
                              unsigned long long launches) {
  std::printf("RESULT program=%s graph=%s vertices=%u edges=%u reps=%d time_ms=%.4f launches=%llu\n", program,
              o.graph_file.empty() ? o.graph.c_str() : "file", g.vertices, g.edges(), o.reps, median_ms, launches);
}

}  // namespace graph
