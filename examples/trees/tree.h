// Host-only support shared by the tree example programs (descendants,
// heights, tree_levels) and their flat and rewritten variants: seeded tree
// generators, the CSR form (child_offsets / children), the command line, the
// serial references and result output. No CUDA in here, so the rewriters never
// need to touch it.
//
// Nodes are numbered in breadth-first order from the root 0; node v's
// children are children[child_offsets[v] .. child_offsets[v + 1]).
//   regular: every node above the last level has exactly --degree children
//            (the paper's sparsity 0, irregular-loop-and-recursion-templates.md III-C);
//   skewed:  power-law outdegree: a node's child count is 1 + --degree / (8 u)
//            for a uniform u in [0.001, 1) (capped at 64 x --degree), or 0 with
//            probability 1/2, so a few hubs hold much of the work and half the
//            nodes are leaves.
// Generation stops adding children at --depth levels or --max-nodes nodes.
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace tree {

struct csr {
  uint32_t nodes = 0;
  std::vector<uint32_t> child_offsets;  // nodes + 1 entries
  std::vector<uint32_t> children;       // nodes - 1 entries
  std::vector<uint32_t> parent;         // parent[0] = kNoParent
  uint32_t degree(uint32_t v) const { return child_offsets[v + 1] - child_offsets[v]; }
};

inline constexpr uint32_t kNoParent = 0xFFFFFFFFu;

// splitmix64, exactly specified so trees are identical everywhere.
class rng {
 public:
  explicit rng(uint64_t seed) : state_(seed ^ 0x9E3779B97F4A7C15ull) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  uint64_t state_;
};

struct options {
  std::string kind = "regular";
  uint32_t degree = 16;
  uint32_t depth = 4;
  uint32_t max_nodes = 200000;
  uint64_t seed = 1;
  int reps = 1;
  std::string out;
};

inline const char* usage() {
  return "usage: PROGRAM [--tree regular|skewed] [--degree D] [--depth L] [--max-nodes N] [--seed S] [--reps R]"
         " [--out FILE]\n";
}

inline uint64_t parse_number(const char* flag, const char* text, uint64_t max) {
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno || !end || *end || text[0] == '-' || text[0] == '\0' || v > max)
    throw std::runtime_error(std::string(flag) + ": not a number in [0, " + std::to_string(max) + "]: '" + text + "'");
  return v;
}

inline options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) throw std::runtime_error("missing value after " + a);
    const char* v = argv[++i];
    if (a == "--tree") {
      o.kind = v;
      if (o.kind != "regular" && o.kind != "skewed") throw std::runtime_error("--tree: regular or skewed, not '" + o.kind + "'");
    } else if (a == "--degree") o.degree = uint32_t(parse_number("--degree", v, 1u << 16));
    else if (a == "--depth") o.depth = uint32_t(parse_number("--depth", v, 64));
    else if (a == "--max-nodes") o.max_nodes = uint32_t(parse_number("--max-nodes", v, 1u << 26));
    else if (a == "--seed") o.seed = parse_number("--seed", v, ~0ull);
    else if (a == "--reps") o.reps = int(parse_number("--reps", v, 1000));
    else if (a == "--out") o.out = v;
    else throw std::runtime_error("unknown option " + a);
  }
  if (o.max_nodes < 1) throw std::runtime_error("--max-nodes: at least 1");
  if (o.reps < 1) throw std::runtime_error("--reps: at least 1");
  return o;
}

inline csr make_tree(const options& o) {
  csr t;
  rng r(o.seed);
  std::vector<uint32_t> level_of{0};
  t.parent.push_back(kNoParent);
  t.child_offsets.push_back(0);
  // Breadth-first: node v's children are appended when v is expanded.
  for (uint32_t v = 0; v < t.parent.size(); ++v) {
    uint64_t want = 0;
    if (level_of[v] < o.depth) {
      if (o.kind == "regular") want = o.degree;
      else if (r.unit() >= 0.5) {
        double u = r.unit() * 0.999 + 0.001;
        want = 1 + uint64_t(double(o.degree) / 8.0 / u);
        if (want > 64ull * o.degree) want = 64ull * o.degree;
      }
    }
    uint64_t room = o.max_nodes - t.parent.size();
    if (want > room) want = room;
    for (uint64_t k = 0; k < want; ++k) {
      t.children.push_back(uint32_t(t.parent.size()));
      t.parent.push_back(v);
      level_of.push_back(level_of[v] + 1);
    }
    t.child_offsets.push_back(uint32_t(t.children.size()));
  }
  t.nodes = uint32_t(t.parent.size());
  return t;
}

// Serial references (the paper's iterative serial code, Figure 3(b)).
inline std::vector<uint32_t> descendants_ref(const csr& t) {
  std::vector<uint32_t> d(t.nodes, 1);
  for (uint32_t v = t.nodes; v-- > 1;) d[t.parent[v]] += d[v];  // children come after parents
  return d;
}
inline std::vector<uint32_t> heights_ref(const csr& t) {
  std::vector<uint32_t> h(t.nodes, 1);
  for (uint32_t v = t.nodes; v-- > 1;) h[t.parent[v]] = std::max(h[t.parent[v]], h[v] + 1);
  return h;
}
inline std::vector<uint32_t> levels_ref(const csr& t) {
  std::vector<uint32_t> l(t.nodes, 0);
  for (uint32_t v = 1; v < t.nodes; ++v) l[v] = l[t.parent[v]] + 1;
  return l;
}

inline uint64_t checksum(const std::vector<uint32_t>& v) {
  uint64_t s = 0;
  for (size_t i = 0; i < v.size(); ++i) s = s * 1000003ull + v[i] + i;
  return s;
}

// Prints the summary line and writes every value to --out (the equivalence
// tests compare these files exactly). Returns the exit code: 1 when the
// result differs from the serial reference.
inline int report(const char* program, const options& o, const csr& t, const std::vector<uint32_t>& got,
                  const std::vector<uint32_t>& want, double best_ms) {
  std::printf("%s: tree %s degree %u depth %u nodes %u: checksum %llu, %.3f ms (best of %d)%s\n", program,
              o.kind.c_str(), o.degree, o.depth, t.nodes, (unsigned long long)checksum(got), best_ms, o.reps,
              got == want ? "" : ", DIFFERS FROM THE SERIAL REFERENCE");
  if (!o.out.empty()) {
    std::string tmp = o.out + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "%s: cannot write %s: %s\n", program, tmp.c_str(), std::strerror(errno));
      return 2;
    }
    for (uint32_t x : got) std::fprintf(f, "%u\n", x);
    if (std::fclose(f) != 0 || std::rename(tmp.c_str(), o.out.c_str()) != 0) {
      std::fprintf(stderr, "%s: cannot write %s\n", program, o.out.c_str());
      return 2;
    }
  }
  return got == want ? 0 : 1;
}

}  // namespace tree
