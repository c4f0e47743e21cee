// Structure-aware mutation for fuzz_model: CUDA sources mutated at the level
// of tokens and lines, so that most mutants still lex as C++ and reach the
// model builder instead of dying in the parser's first line. One mutation per
// call, picked at random: swap, duplicate or delete a token; splice a line
// from another input (libFuzzer's crossover, and CUDA fragments kept here);
// insert a `#pragma np` line, a brace, `<<<`/`>>>`, a kernel fragment; or
// libFuzzer's own byte mutations (LLVMFuzzerMutate).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

struct Span {
  size_t begin, end;
};

// Identifiers, numbers, punctuation runs that CUDA uses (<<< >>> :: -> ++ ...).
std::vector<Span> tokens(const std::string &s) {
  std::vector<Span> out;
  size_t i = 0;
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) { ++i; continue; }
    size_t b = i;
    if (ident(s[i])) {
      while (i < s.size() && ident(s[i])) ++i;
    } else if (s.compare(i, 3, "<<<") == 0 || s.compare(i, 3, ">>>") == 0) {
      i += 3;
    } else {
      ++i;
    }
    out.push_back({b, i});
  }
  return out;
}

std::vector<Span> lines(const std::string &s) {
  std::vector<Span> out;
  size_t b = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '\n') {
      out.push_back({b, i});
      b = i + 1;
    }
  return out;
}

const char *const kFragments[] = {
    "#pragma np parallel for\n",
    "#pragma np parallel for reduction(+:s)\n",
    "#pragma np parallel for reduction(max:m) scan(+:p) copyin(a) num_threads(8) np_type(intra)\n",
    "#pragma np for num_threads(32) np_type(inter) sm_version(90)\n",
    "#pragma np parallel for copyin(",
    "{", "}", "{\n", "}\n", "(", ")", ";", "<<<", ">>>", "<<<1, 32>>>", "<<<gridDim.x, blockDim.x, 0, s>>>",
    "__syncthreads();\n", "__syncwarp();\n", "if (threadIdx.x == 0) ", "return;\n", "break;\n", "continue;\n",
    "for (int i = 0; i < n; ++i) ", "for (int j = threadIdx.x; j < len[i]; j += blockDim.x) ",
    "while (k < n) ", "s += a[i * n + j];\n", "atomicAdd(&out[0], s);\n", "__shfl_down_sync(0xffffffffu, v, 16)",
    "child<<<n / 32 + 1, 32>>>(a, n);\n", "cudaDeviceSynchronize();\n", "__shared__ float buf[256];\n",
    "float loc[16];\n", "__global__ void k2(int *a, int n) {\n", "__device__ int f(int x) { return f(x - 1); }\n",
    "template <int N> __global__ void t(float *a) { a[N] = 0; }\n", "[&](int i) { return i; }",
    "threadIdx.x", "blockIdx.x * blockDim.x + threadIdx.x", "blockDim.x", "gridDim.y", "#include <cstdio>\n",
    "#define N 32\n", "goto end;\nend:\n", "switch (n) { case 0: break; default: ; }\n", "static_cast<int>(",
    "\\\n", "/*", "*/", "//", "\"", "'", "#if 0\n", "#endif\n", "1e308 * 1e308", "0x7fffffff + 1",
};

size_t emit(const std::string &out, uint8_t *data, size_t maxSize) {
  size_t n = out.size() < maxSize ? out.size() : maxSize;
  std::memcpy(data, out.data(), n);
  return n;
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize, unsigned int seed) {
  std::mt19937 rng(seed);
  auto pick = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  std::string s(reinterpret_cast<const char *>(data), size);
  std::vector<Span> toks = tokens(s);
  switch (rng() % 8) {
  case 0: // delete a token
    if (!toks.empty()) {
      Span t = toks[pick(toks.size())];
      s.erase(t.begin, t.end - t.begin);
      return emit(s, data, maxSize);
    }
    break;
  case 1: // duplicate a token next to itself
    if (!toks.empty()) {
      Span t = toks[pick(toks.size())];
      s.insert(t.end, " " + s.substr(t.begin, t.end - t.begin));
      return emit(s, data, maxSize);
    }
    break;
  case 2: // swap two tokens
    if (toks.size() >= 2) {
      Span a = toks[pick(toks.size())], b = toks[pick(toks.size())];
      if (a.begin > b.begin) std::swap(a, b);
      if (a.end <= b.begin) {
        std::string ta = s.substr(a.begin, a.end - a.begin), tb = s.substr(b.begin, b.end - b.begin);
        s.replace(b.begin, b.end - b.begin, ta);
        s.replace(a.begin, a.end - a.begin, tb);
        return emit(s, data, maxSize);
      }
    }
    break;
  case 3: // copy a token over another
    if (toks.size() >= 2) {
      Span a = toks[pick(toks.size())], b = toks[pick(toks.size())];
      std::string ta = s.substr(a.begin, a.end - a.begin);
      s.replace(b.begin, b.end - b.begin, ta);
      return emit(s, data, maxSize);
    }
    break;
  case 4: // insert a fragment at a line start
  case 5: { // or after a token
    const char *frag = kFragments[pick(sizeof(kFragments) / sizeof(kFragments[0]))];
    size_t at = s.size();
    if (rng() % 2 == 0) {
      std::vector<Span> ls = lines(s);
      at = ls[pick(ls.size())].begin;
    } else if (!toks.empty()) {
      at = toks[pick(toks.size())].end;
    }
    s.insert(at, frag);
    return emit(s, data, maxSize);
  }
  case 6: { // move or duplicate a line
    std::vector<Span> ls = lines(s);
    if (ls.size() >= 2) {
      Span l = ls[pick(ls.size())];
      std::string line = s.substr(l.begin, l.end - l.begin) + "\n";
      if (rng() % 2) s.erase(l.begin, std::min(s.size() - l.begin, line.size()));
      std::vector<Span> again = lines(s);
      s.insert(again[pick(again.size())].begin, line);
      return emit(s, data, maxSize);
    }
    break;
  }
  default:
    break;
  }
  return LLVMFuzzerMutate(data, size, maxSize);
}

// Splices whole lines: a run of lines of one input replaces a run of the
// other's, so that kernels, loops and pragmas move between seeds intact.
extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                            uint8_t *out, size_t maxOutSize, unsigned int seed) {
  std::mt19937 rng(seed);
  std::string a(reinterpret_cast<const char *>(data1), size1), b(reinterpret_cast<const char *>(data2), size2);
  std::vector<Span> la = lines(a), lb = lines(b);
  size_t a0 = rng() % la.size(), a1 = a0 + rng() % (la.size() - a0);
  size_t b0 = rng() % lb.size(), b1 = b0 + rng() % (lb.size() - b0);
  std::string result = a.substr(0, la[a0].begin) + b.substr(lb[b0].begin, lb[b1].end - lb[b0].begin) +
                       a.substr(std::min(a.size(), la[a1].end));
  return emit(result, out, maxOutSize);
}
