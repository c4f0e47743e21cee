// Analysis entry point: bad inputs, unsaved contents, fallback headers,
// preamble reuse.
#include "nestor/Analysis.h"
#include "nestor/Lint.h"
#include "nestor/Mapping.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

using namespace nestor;

namespace {
struct TempDir {
  llvm::SmallString<128> path;
  TempDir() { llvm::sys::fs::createUniqueDirectory("nestor-analysis", path); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(const std::string &name, const std::string &contents) {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(p, ec);
    os << contents;
    return std::string(p);
  }
};

const char *kTmv = R"(__global__ void tmv(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  for (int i = 0; i < h; i++) sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}
)";

std::string errorOf(const std::string &path) {
  auto tu = analyzeFile(path, AnalysisOptions{});
  return tu ? "" : llvm::toString(tu.takeError());
}

/// A loop's accesses by their spelling, `array[index]`.
std::map<std::string, const ArrayAccess *> accessesBySpelling(const LoopSite &l) {
  std::map<std::string, const ArrayAccess *> by;
  for (const ArrayAccess &a : l.accesses) by[a.array + "[" + a.index + "]"] = &a;
  return by;
}
} // namespace

TEST(Analysis, BadInputsGiveClearErrors) {
  TempDir d;
  EXPECT_NE(errorOf(std::string(d.path) + "/missing.cu").find("cannot read file"), std::string::npos);
  EXPECT_NE(errorOf(std::string(d.path)).find("is a directory"), std::string::npos);
  EXPECT_NE(errorOf(d.file("notes.txt", "hello")).find("not a CUDA source file"), std::string::npos);
  EXPECT_NE(errorOf(d.file("blob.cu", std::string("\x7f" "ELF\0\0\0", 7))).find("binary file"), std::string::npos);
}

TEST(Analysis, EmptyFileHasAnEmptyModel) {
  TempDir d;
  auto tu = analyzeFile(d.file("empty.cu", ""), AnalysisOptions{});
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  EXPECT_TRUE((*tu)->model().kernels.empty());
  EXPECT_TRUE((*tu)->model().parseDiagnostics.empty());
}

TEST(Analysis, UnsavedContentsWinOverTheFile) {
  TempDir d;
  std::string path = d.file("k.cu", "// nothing here yet\n");
  AnalysisOptions o;
  o.contents = kTmv;
  auto tu = analyzeFile(path, o);
  ASSERT_TRUE(bool(tu));
  ASSERT_EQ((*tu)->model().kernels.size(), 1u);
  EXPECT_EQ((*tu)->model().kernels[0].name, "tmv");
  EXPECT_EQ((*tu)->mainFileText(), kTmv);
}

TEST(Analysis, WithoutToolkitUsesBuiltinDeclarations) {
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("k.cu", std::string("#include <cuda_runtime.h>\n") + kTmv), o);
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  const FileModel &m = (*tu)->model();
  EXPECT_TRUE(m.usedFallbackCudaHeaders);
  ASSERT_EQ(m.loops.size(), 1u);
  EXPECT_EQ(m.loops[0].reductions.size(), 1u);
  EXPECT_EQ(m.loops[0].tripCount, TripCountClass::Uniform);
}

// `out[j] = s; s += x;` is a scan in exclusive order, not a carried dependence;
// a scalar read elsewhere in the loop (not stored) still is one.
TEST(Analysis, ExclusiveOrderScanIsRecognised) {
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("scan.cu", "__global__ void k(const int *f, int *pos, int *bad, int m) {\n"
                                          "  int c = 0, e = 0;\n"
                                          "  for (int j = 0; j < m; ++j) { pos[j] = c; c += f[j]; }\n"
                                          "  for (int j = 0; j < m; ++j) { if (e > 3) bad[j] = 1; e += f[j]; }\n"
                                          "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.loops.size(), 2u);
  ASSERT_EQ(m.loops[0].scans.size(), 1u);
  EXPECT_EQ(m.loops[0].scans[0].var, "c");
  EXPECT_EQ(m.loops[0].scans[0].op, ReductionOp::Add);
  EXPECT_TRUE(m.loops[0].carriedDependences.empty());
  EXPECT_TRUE(m.loops[1].scans.empty());
  ASSERT_EQ(m.loops[1].carriedDependences.size(), 1u);
  EXPECT_EQ(m.loops[1].carriedDependences[0].var, "e");
}

// A template kernel launched with two instantiations is one kernel with one
// loop (its pattern): the instantiations repeat its text, and a rewrite edits
// that text for all of them. An accumulator of the template's own type is no
// proven reduction: `+=` may be a class's own in some instantiation.
TEST(Analysis, ATemplateKernelIsModelledOnceByItsPattern) {
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("tpl.cu", "template <int S> __global__ void rows(const int *st, const float *w, float *o) {\n"
                                         "  int i = threadIdx.x; float s = 0.0f;\n"
                                         "  for (int k = st[i]; k < st[i + 1]; ++k) s += w[k] * S;\n"
                                         "  o[i] = s;\n"
                                         "}\n"
                                         "template <class T> __global__ void typed(const int *st, const T *w, T *o) {\n"
                                         "  int i = threadIdx.x; T s = 0;\n"
                                         "  for (int k = st[i]; k < st[i + 1]; ++k) s += w[k];\n"
                                         "  o[i] = s;\n"
                                         "}\n"
                                         "void run(const int *st, const float *w, float *o) {\n"
                                         "  rows<2><<<1, 32>>>(st, w, o); rows<3><<<1, 32>>>(st, w, o);\n"
                                         "  typed<float><<<1, 32>>>(st, w, o);\n"
                                         "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[0].name, "rows");
  EXPECT_EQ(m.kernels[0].launchedBy.size(), 2u);
  ASSERT_EQ(m.loops.size(), 2u);
  ASSERT_EQ(m.loops[0].reductions.size(), 1u);
  EXPECT_EQ(m.loops[0].reductions[0].var, "s");
  EXPECT_TRUE(m.loops[0].carriedDependences.empty());
  EXPECT_TRUE(m.loops[1].reductions.empty());
  ASSERT_EQ(m.loops[1].carriedDependences.size(), 1u);
  EXPECT_NE(m.loops[1].carriedDependences[0].reason.find("depends on a template parameter ('T')"), std::string::npos)
      << m.loops[1].carriedDependences[0].reason;
}

// `child<B><<<...>>>` inside `template <int B> parent`: the callee is an
// unresolved lookup until instantiation; the launch still names the child
// kernel, which the launch counts and whose body the serialisability check
// reads.
TEST(Analysis, ALaunchOfATemplateWithTheParentsArgumentNamesItsKernel) {
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("tdp.cu", "template <int B> __global__ void c(int *a, int n) {\n"
                                         "  int j = blockIdx.x * blockDim.x + threadIdx.x; if (j < n) a[j] = 0;\n"
                                         "}\n"
                                         "template <int B> __global__ void p(int *a, int n) {\n"
                                         "  c<B><<<(n + B - 1) / B, B>>>(a, n);\n"
                                         "}\n"
                                         "void run(int *a) { p<32><<<1, 1>>>(a, 10); }\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.launches.size(), 2u);
  EXPECT_EQ(m.launches[0].child, "c");
  EXPECT_TRUE(m.launches[0].deviceSide);
  EXPECT_TRUE(m.launches[0].serializable);
  const Kernel *child = m.findKernel("c");
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->launchedBy.size(), 1u);
}

TEST(Analysis, WithoutToolkitDeviceLaunchesStillParse) {
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("dp.cu", "__global__ void c(int *a) { a[threadIdx.x] = 0; }\n"
                                        "__global__ void p(int *a, int n) { c<<<(n + 31) / 32, 32>>>(a); }\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  ASSERT_EQ((*tu)->model().launches.size(), 1u);
  EXPECT_TRUE((*tu)->model().launches[0].deviceSide);
  EXPECT_EQ((*tu)->model().launches[0].threads.value_or(""), "n");
  EXPECT_TRUE((*tu)->model().parseDiagnostics.empty()) << (*tu)->model().parseDiagnostics[0].message;
}

TEST(Analysis, ChildThreadsFromACeilingDivisionAreTheThreadsThatWork) {
  // `(n + 31) / 32` blocks of 32: n threads can do work (the launch
  // templates compare lb_threshold with n); `g` blocks of 32 give g x 32,
  // and nothing says how many of them work.
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("dp.cu", "__global__ void c(int *a) { a[threadIdx.x] = 0; }\n"
                                        "__global__ void p(int *a, int n, int g) {\n"
                                        "  c<<<(n + 31) / 32, 32>>>(a);\n"
                                        "  c<<<g, 32>>>(a);\n"
                                        "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  ASSERT_EQ((*tu)->model().launches.size(), 2u);
  const LaunchSite &divided = (*tu)->model().launches[0], &plain = (*tu)->model().launches[1];
  EXPECT_EQ(divided.threads.value_or(""), "n");
  EXPECT_TRUE(divided.threadsByCeilingDivision) << divided.threadsHow;
  EXPECT_TRUE(plain.threads.has_value());
  EXPECT_FALSE(plain.threadsByCeilingDivision) << plain.threadsHow;
}

TEST(Analysis, GuardsOnTheChildSizeBoundTheLaunch) {
  // A launch under `deg > 0 && deg <= cap` (cap a parameter every host launch
  // passes as 16), one after an early return for `deg < 48`, one whose bound
  // is a parameter the host passes as different values, and one whose size
  // variable changes after the guard: the first two are bounded.
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("guards.cu", R"(__global__ void c(int *a, unsigned n) { if (threadIdx.x < n) a[threadIdx.x] = 0; }
__global__ void low(const unsigned *row, int *a, unsigned cap) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned deg = row[v + 1] - row[v];
  if (deg > 0 && deg <= cap) c<<<(deg + 127) / 128, 128>>>(a, deg);
}
__global__ void hubs(const unsigned *row, int *a) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned deg = row[v + 1] - row[v];
  if (deg < 48) return;
  c<<<(deg + 31) / 32, 32>>>(a, deg);
}
__global__ void either(const unsigned *row, int *a, unsigned cap) {
  unsigned deg = row[threadIdx.x + 1] - row[threadIdx.x];
  if (deg <= cap) c<<<(deg + 31) / 32, 32>>>(a, deg);
}
__global__ void grown(const unsigned *row, int *a) {
  unsigned deg = row[threadIdx.x + 1] - row[threadIdx.x];
  if (deg <= 8) {
    deg *= 64;
    c<<<(deg + 31) / 32, 32>>>(a, deg);
  }
}
void run(const unsigned *row, int *a, unsigned n) {
  const unsigned cap = 16u;
  low<<<n / 128, 128>>>(row, a, cap);
  hubs<<<n / 128, 128>>>(row, a);
  either<<<1, 32>>>(row, a, 8u);
  either<<<1, 32>>>(row, a, 12u);
  grown<<<1, 32>>>(row, a);
}
)"),
                        o);
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  std::map<std::string, const LaunchSite *> byParent;
  for (const LaunchSite &l : (*tu)->model().launches)
    if (l.deviceSide) byParent[l.parent] = &l;
  ASSERT_EQ(byParent.size(), 4u);
  EXPECT_EQ(byParent["low"]->childAtLeast.value_or(-1), 1);
  EXPECT_EQ(byParent["low"]->childAtMost.value_or(-1), 16);
  EXPECT_EQ(byParent["low"]->childBoundSpan.begin.line, 5u);
  EXPECT_EQ(byParent["hubs"]->childAtLeast.value_or(-1), 48);
  EXPECT_FALSE(byParent["hubs"]->childAtMost);
  EXPECT_FALSE(byParent["either"]->childAtMost);
  EXPECT_FALSE(byParent["grown"]->childAtMost);
}

TEST(Analysis, PreambleIsReusedAcrossEdits) {
  TempDir d;
  std::string path = d.file("k.cu", std::string("#include <cuda_runtime.h>\n") + kTmv);
  PreambleCache cache;
  AnalysisOptions o;
  o.contents = std::string("#include <cuda_runtime.h>\n") + kTmv;
  auto first = analyzeFile(path, o, &cache);
  ASSERT_TRUE(bool(first));
  ASSERT_EQ(cache.size(), 1u);
  // Edit the body only: the preamble (the #include) is unchanged.
  o.contents = std::string("#include <cuda_runtime.h>\n") + kTmv + "\n__global__ void more(int *x) { x[0] = 1; }\n";
  auto second = analyzeFile(path, o, &cache);
  ASSERT_TRUE(bool(second));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ((*second)->model().kernels.size(), 2u);
  EXPECT_TRUE((*second)->model().parseDiagnostics.empty());
}

// The preamble skips bodies of system-header functions only: a child kernel
// defined in the project's own header (inside the preamble) is still analysed.
TEST(Analysis, ChildBodiesInProjectHeadersSurviveThePreamble) {
  TempDir d;
  d.file("child.cuh", "__global__ void child(float *a) {\n  __shared__ float t[32];\n  t[threadIdx.x] = a[threadIdx.x];\n"
                      "  __syncthreads();\n  a[threadIdx.x] = t[31 - threadIdx.x];\n}\n");
  std::string src = "#include \"child.cuh\"\n__global__ void parent(float *a, int n) {\n"
                    "  child<<<(n + 31) / 32, 32>>>(a + threadIdx.x * n);\n}\n";
  std::string path = d.file("parent.cu", src);
  PreambleCache cache;
  for (int edit = 0; edit < 2; ++edit) {
    AnalysisOptions o;
    o.contents = src + (edit ? "// edited\n" : "");
    auto tu = analyzeFile(path, o, &cache);
    ASSERT_TRUE(bool(tu));
    ASSERT_EQ((*tu)->model().launches.size(), 1u);
    const LaunchSite &l = (*tu)->model().launches[0];
    EXPECT_FALSE(l.serializable);
    ASSERT_FALSE(l.reasons.empty());
    EXPECT_NE(l.reasons[0].find("__syncthreads"), std::string::npos) << l.reasons[0];
  }
  EXPECT_EQ(cache.builds(), 1u);
}

// The fuzz target's mode: successive texts at one path with different
// leading lines share one preamble of the implicit CUDA header, and each
// text's own #include block is parsed with the file (its kernels, loops and
// the declarations it includes are all seen).
TEST(Analysis, ImplicitIncludesOnlyPreambleIsSharedAcrossLeadingLines) {
  TempDir d;
  d.file("sizes.h", "#define TILE 32\n__device__ inline int twice(int v) { return 2 * v; }\n");
  std::string path = d.file("input.cu", "");
  const std::string texts[] = {
      "#include \"sizes.h\"\n__global__ void a(int *x, int n) {\n  for (int i = 0; i < TILE; ++i) x[i] = twice(i);\n}\n",
      "// another first line\n__global__ void b(int *x) { x[0] = 1; }\n__global__ void c(int *x) { x[1] = 2; }\n",
      "#define N 8\n#include \"sizes.h\"\n__global__ void e(float *y) {\n  for (int j = 0; j < N; ++j) y[j] = 0.f;\n}\n"};
  const size_t kernels[] = {1, 2, 1}, loops[] = {1, 0, 1};
  PreambleCache cache;
  for (int i = 0; i < 3; ++i) {
    AnalysisOptions o;
    o.contents = texts[i];
    o.flags.cudaPath = "none";
    o.flags.userFlags = std::vector<std::string>{};
    o.precompileImplicitIncludesOnly = true;
    auto tu = analyzeFile(path, o, &cache);
    ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
    EXPECT_EQ((*tu)->model().kernels.size(), kernels[i]) << texts[i];
    EXPECT_EQ((*tu)->model().loops.size(), loops[i]) << texts[i];
    EXPECT_TRUE((*tu)->model().parseDiagnostics.empty()) << texts[i] << (*tu)->model().parseDiagnostics[0].message;
  }
  EXPECT_EQ(cache.builds(), 1u) << "one preamble (the built-in CUDA header) for all three texts";
  // The default mode keys the preamble on the leading lines: the same three
  // texts build one for each of the two with an #include.
  PreambleCache perText;
  for (const std::string &t : texts) {
    AnalysisOptions o;
    o.contents = t;
    o.flags.cudaPath = "none";
    o.flags.userFlags = std::vector<std::string>{};
    ASSERT_TRUE(bool(analyzeFile(path, o, &perText)));
  }
  EXPECT_EQ(perText.builds(), 2u);
}

// A local pointer to the thread's row (`const float *z = logits + r * n;`):
// z[k] names no thread in its index, but every thread walks its own memory
// (fourth held-out set's log-sum-exp rows: the model had seen no bytes moved).
TEST(Analysis, AChildThatBranchesOnAGatheredValue) {
  // The mapping model makes a serial walk of such a child wait for both
  // loads at every step (Kernel::branchesOnGather); a condition on a
  // coalesced load, or a gather outside any condition, is not one.
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(
      d.file("children.cu",
             "__global__ void visit(const unsigned *adj, unsigned first, unsigned n, unsigned *depth, unsigned next) {\n"
             "  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  if (k < n) {\n"
             "    unsigned w = adj[first + k];\n"
             "    if (depth[w] == 0xffffffffu) depth[w] = next;\n"
             "  }\n"
             "}\n"
             "__global__ void relax(const unsigned *adj, unsigned first, unsigned n, unsigned *dist, unsigned d,\n"
             "                      int *changed) {\n"
             "  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  if (k < n && atomicMin(&dist[adj[first + k]], d) > d) *changed = 1;\n"
             "}\n"
             "__global__ void keep(const unsigned *wt, unsigned first, unsigned n, unsigned *out, unsigned *count) {\n"
             "  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  if (j < n && wt[first + j] > 8u) out[atomicAdd(count, 1u)] = j;\n"
             "}\n"
             "__global__ void histogram(const unsigned *adj, unsigned first, unsigned n, const unsigned *label,\n"
             "                          unsigned *bins) {\n"
             "  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  if (k < n) atomicAdd(&bins[label[adj[first + k]]], 1u);\n"
             "}\n"),
      o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_TRUE(m.findKernel("visit") && m.findKernel("relax") && m.findKernel("keep") && m.findKernel("histogram"));
  EXPECT_TRUE(m.findKernel("visit")->branchesOnGather);
  EXPECT_TRUE(m.findKernel("relax")->branchesOnGather);
  EXPECT_FALSE(m.findKernel("keep")->branchesOnGather) << "wt[first + j] is read where the thread's index says";
  EXPECT_FALSE(m.findKernel("histogram")->branchesOnGather) << "the gather is not in a condition";
}

TEST(Analysis, AConstantStrideAlongTheLoopIsRecorded) {
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("fourier.cu", "__global__ void k(const float *coef, const float *theta, float *out, int n, int terms) {\n"
                                             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                             "  if (i < n) {\n"
                                             "    const float *c = coef + (long)i * 2 * terms;\n"
                                             "    float s = 0.0f;\n"
                                             "    for (int k = 0; k < terms; ++k) s += c[2 * k] * theta[k] + c[k * 2 + 1] + c[k] + c[3 * k + k];\n"
                                             "    out[i] = s;\n"
                                             "  }\n"
                                             "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.loops.size(), 1u);
  std::map<std::string, unsigned> stride;
  for (const ArrayAccess &a : m.loops[0].accesses) stride[a.array + "[" + a.index + "]"] = a.inductionStride;
  EXPECT_EQ(stride["c[2 * k]"], 2u);
  EXPECT_EQ(stride["c[k * 2 + 1]"], 2u);
  EXPECT_EQ(stride["c[k]"], 1u);
  EXPECT_EQ(stride["theta[k]"], 1u);
  EXPECT_EQ(stride["c[3 * k + k]"], 0u) << "the induction variable in two terms: no single stride";
  for (const ArrayAccess &a : m.loops[0].accesses)
    EXPECT_EQ(a.inductionContiguous, a.inductionStride == 1) << a.array << "[" << a.index << "]";
}

TEST(Analysis, AReadOfDataAnotherReadFetchesIsRecorded) {
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("stencil.cu", "struct Dims { int n; };\n"
                                             "__global__ void k(const float *p, const float *x, const float *q, float *out,\n"
                                             "                  Dims g, int steps, int m) {\n"
                                             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                             "  if (i < g.n) {\n"
                                             "    float s = 0.0f;\n"
                                             "    for (int t = 1; t < steps; ++t)\n"
                                             "      s += p[(size_t)t * g.n + i] / p[(size_t)(t - 1) * g.n + i]\n"
                                             "         + x[i * m + t] * x[i * m + (t + 1)] + x[(i << 2) + t]\n"
                                             "         + q[t * g.n + i] + q[t * g.n + i + g.n * 16] + q[t * t]\n"
                                             "         + out[t * g.n + i] + out[(t + 1) * g.n + i];\n"
                                             "    out[i] = s;\n"
                                             "  }\n"
                                             "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.loops.size(), 1u);
  const auto &acc = m.loops[0].accesses;
  auto at = [&](const std::string &text) -> int {
    for (size_t j = 0; j < acc.size(); ++j)
      if (acc[j].array + "[" + acc[j].index + "]" == text && !acc[j].isWrite) return int(j);
    ADD_FAILURE() << "no read " << text;
    return -2;
  };
  auto sameAs = [&](const std::string &text) { int j = at(text); return j >= 0 ? acc[size_t(j)].sameDataAs : -2; };
  // One step earlier along the loop, through a cast and a member.
  EXPECT_EQ(sameAs("p[(size_t)(t - 1) * g.n + i]"), at("p[(size_t)t * g.n + i]"));
  EXPECT_EQ(sameAs("p[(size_t)t * g.n + i]"), -1) << "the first of the two";
  // The next element: the same sectors.
  EXPECT_EQ(sameAs("x[i * m + (t + 1)]"), at("x[i * m + t]"));
  EXPECT_EQ(sameAs("x[(i << 2) + t]"), -1) << "another thread's row unless m is 4";
  // Sixteen steps apart, and a walk of another shape: not the same data.
  EXPECT_EQ(sameAs("q[t * g.n + i + g.n * 16]"), -1);
  EXPECT_EQ(sameAs("q[t * t]"), -1);
  // Reads of an array the kernel writes are fetched the same way.
  EXPECT_EQ(sameAs("out[(t + 1) * g.n + i]"), at("out[t * g.n + i]"));
}

TEST(Analysis, APointerTheLoopMovesWalksWithTheLoop) {
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("motif.cu", "__global__ void k(const char *reads, const int *start, int *hits, int n, int len) {\n"
                                           "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "  if (r >= n) return;\n"
                                           "  int found = 0;\n"
                                           "  for (int k = 0; k <= len - 4; ++k) {\n"
                                           "    const char *s = reads + (size_t)r * len + k;\n"
                                           "    const int *t = start + r;\n"
                                           "    found += (s[0] == 'A' && s[1] == 'C') + t[0];\n"
                                           "  }\n"
                                           "  hits[r] = found;\n"
                                           "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.loops.size(), 1u);
  const auto &acc = m.loops[0].accesses;
  auto find = [&](const std::string &index) -> const ArrayAccess * {
    for (const ArrayAccess &a : acc)
      if (a.index == index) return &a;
    ADD_FAILURE() << "no access with index " << index;
    return nullptr;
  };
  // s[0] is reads[(size_t)r * len + k + 0]: it moves with k, one element a step.
  const ArrayAccess *s0 = find("k + 0"), *s1 = find("k + 1");
  ASSERT_TRUE(s0 && s1);
  EXPECT_EQ(s0->array, "reads + (size_t)r * len");
  EXPECT_TRUE(s0->dependsOnInduction);
  EXPECT_TRUE(s0->dependsOnThread);
  EXPECT_EQ(s0->inductionStride, 1u);
  EXPECT_EQ(s1->sameDataAs, int(s0 - acc.data())) << "the next byte: the same sectors";
  // t does not move with the loop: the thread's own element, as before.
  const ArrayAccess *t0 = find("0");
  ASSERT_TRUE(t0);
  EXPECT_EQ(t0->array, "t");
  EXPECT_FALSE(t0->dependsOnInduction);
}

TEST(Analysis, AnAccessRecordsTheBytesOfItsElement) {
  // The cost model counts bytes with it: a row of 1-byte bases moves a
  // quarter of a float row's bytes.
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("sizes.cu", "struct P { float x, y, z; };\n"
                                           "template <typename T> __device__ T first(const T *v, int n) {\n"
                                           "  T s = T();\n"
                                           "  for (int k = 0; k < n; ++k) s += v[k];\n"
                                           "  return s;\n"
                                           "}\n"
                                           "__global__ void k(const char *c, const double *x, const P *p, float *out, int n) {\n"
                                           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "  float s = 0;\n"
                                           "  for (int k = 0; k < n; ++k) s += c[i * n + k] + x[i * n + k] + p[i * n + k].y;\n"
                                           "  out[i] = s;\n"
                                           "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  const LoopSite *inKernel = nullptr, *inTemplate = nullptr;
  for (const LoopSite &l : m.loops) (l.function == "k" ? inKernel : inTemplate) = &l;
  ASSERT_TRUE(inKernel && inTemplate);
  std::map<std::string, unsigned> bytes;
  for (const ArrayAccess &a : inKernel->accesses) bytes[a.array] = a.elementBytes;
  EXPECT_EQ(bytes["c"], 1u);
  EXPECT_EQ(bytes["x"], 8u);
  EXPECT_EQ(bytes["p"], 12u) << "the struct element, of which the loop reads one field";
  // A template's `T` has no size: unknown (the cost model's 4), not a guess.
  ASSERT_FALSE(inTemplate->accesses.empty());
  EXPECT_EQ(inTemplate->accesses[0].elementBytes, 0u);
}

TEST(Analysis, AGatherThroughALocalOfTheBodyIsIndirect) {
  // `int j = nbr[k]; ... px[j]` is the same gather as `px[nbr[k]]`. The
  // ninth held-out set's particle forces read it that way, and the cost
  // model charged each lane a DRAM sector for positions L2 holds.
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("dpd.cu", "__global__ void k(const int *start, const int *nbr, const float *px,\n"
                                         "                  const float *v, float *out, int n) {\n"
                                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                         "  float s = 0;\n"
                                         "  for (int k = start[i]; k < start[i + 1]; ++k) {\n"
                                         "    int j = nbr[k];\n"
                                         "    int jj = j;\n"
                                         "    s += px[jj] + px[nbr[k]] + v[start[i] + k - start[i]];\n"
                                         "  }\n"
                                         "  out[i] = s;\n"
                                         "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.loops.size(), 1u);
  auto by = accessesBySpelling(m.loops[0]);
  ASSERT_TRUE(by.count("px[jj]") && by.count("px[nbr[k]]") && by.count("nbr[k]") && by.count("v[start[i] + k - start[i]]"));
  EXPECT_TRUE(by["px[jj]"]->indirect) << "through two locals";
  EXPECT_TRUE(by["px[nbr[k]]"]->indirect);
  EXPECT_FALSE(by["nbr[k]"]->indirect);
  // The thread's offset is loaded once, not moved by the loop: no gather.
  EXPECT_FALSE(by["v[start[i] + k - start[i]]"]->indirect);
}

TEST(Analysis, ALoopBoundThatNamesAMacroIsSizedWithTheMacroExpanded) {
  // `k <= len - MOTIF_LEN` with `len: 64` given: 61 trips. The ninth held-out
  // set's motif count had its trip count assumed (1000) because the sizes do
  // not name the macro.
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("motif.cu", "#define MOTIF_LEN 4\n"
                                           "#define STEP 2\n"
                                           "__global__ void k(const char *reads, int *hits, int n, int len) {\n"
                                           "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "  if (r >= n) return;\n"
                                           "  int found = 0;\n"
                                           "  for (int k = 0; k <= len - MOTIF_LEN; k += STEP) found += reads[r * len + k] == 'A';\n"
                                           "  hits[r] = found;\n"
                                           "}\n"
                                           "void host(const char *reads, int *hits, int n, int len) {\n"
                                           "  k<<<(n + 127) / 128, 128>>>(reads, hits, n, len);\n"
                                           "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.loops.size(), 1u);
  const LoopSite &l = m.loops[0];
  EXPECT_EQ(l.upperBound, "len - MOTIF_LEN") << "what a person reads stays the source";
  EXPECT_EQ(l.upperBoundExpanded, "len - 4");
  EXPECT_EQ(l.stepAmountExpanded, "2");
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h100");
  cfg.sizes = {{"n", 1 << 20}, {"len", 64}};
  auto t = rankMappingsOf(m, cfg, false, l.id);
  ASSERT_TRUE(t);
  for (const std::string &a : t->assumptions) EXPECT_EQ(a.find("trip count"), std::string::npos) << a;
  // Without `len`, the trip count is still assumed and said.
  cfg.sizes.erase("len");
  t = rankMappingsOf(m, cfg, false, l.id);
  ASSERT_TRUE(t);
  EXPECT_TRUE(std::any_of(t->assumptions.begin(), t->assumptions.end(),
                          [](const std::string &a) { return a.find("trip count") != std::string::npos; }));
}

TEST(Analysis, AMacroBoundTheSizesCannotReadIsStillAssumedAndSaid) {
  // `HALO` expands to a sizeof: neither the source text nor the expansion
  // is something mapping.sizes evaluates, so the trip count is assumed, as
  // before, and the assumption names the loop's key. (A type of its own:
  // without CUDA's headers `float4` would be a parse error in the loop, and
  // a loop with one is not ranked at all.)
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("halo.cu", "struct quad { float x, y, z, w; };\n"
                                          "#define HALO ((int)sizeof(quad))\n"
                                          "__global__ void k(const float *x, float *y, int n, int len) {\n"
                                          "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                          "  if (r >= n) return;\n"
                                          "  float s = 0;\n"
                                          "  for (int k = 0; k < len - HALO; ++k) s += x[r * len + k];\n"
                                          "  y[r] = s;\n"
                                          "}\n"
                                          "void host(const float *x, float *y, int n, int len) { k<<<(n + 127) / 128, 128>>>(x, y, n, len); }\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.loops.size(), 1u);
  EXPECT_NE(m.loops[0].upperBoundExpanded.find("sizeof"), std::string::npos) << m.loops[0].upperBoundExpanded;
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h100");
  cfg.sizes = {{"n", 1 << 20}, {"len", 64}};
  auto t = rankMappingsOf(m, cfg, false, m.loops[0].id);
  ASSERT_TRUE(t);
  EXPECT_TRUE(std::any_of(t->assumptions.begin(), t->assumptions.end(), [](const std::string &a) {
    return a.find("trip count") != std::string::npos && a.find("halo.cu:7") != std::string::npos;
  }));
}

TEST(Analysis, AFlattenedRowIsTheSameAcrossAWarp) {
  // `s = t / maxlag` is a row the warp's lanes share; `lag = t % maxlag` a
  // column that steps by one from lane to lane. The tenth held-out set's
  // autocorrelation read its signal as every lane's own row and had the
  // sub-warp template first (measured 0.35x of the original).
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("acf.cu", "__global__ void k(const float *x, float *acf, int n, int len, int maxlag) {\n"
                                         "  const int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                         "  if (t >= n) return;\n"
                                         "  const int s = t / maxlag, lag = t % maxlag, pair = t / 2;\n"
                                         "  const float *sig = x + (size_t)s * len;\n"
                                         "  float acc = 0;\n"
                                         "  for (int i = 0; i < len - lag; ++i)\n"
                                         "    acc += sig[i] * sig[i + lag] + x[pair * len + i] + x[(t / 0x8000000000000000ull) * len + i];\n"
                                         "  acf[t] = acc;\n"
                                         "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.loops.size(), 1u);
  auto by = accessesBySpelling(m.loops[0]);
  ASSERT_TRUE(by.count("sig[i]") && by.count("sig[i + lag]") && by.count("x[pair * len + i]"));
  EXPECT_FALSE(by["sig[i]"]->dependsOnThread) << "one row for the warp, and `i` steps alike in every lane";
  EXPECT_TRUE(by["sig[i + lag]"]->dependsOnThread);
  EXPECT_TRUE(by["sig[i + lag]"]->threadContiguous) << "lag = t % maxlag: consecutive lanes, consecutive elements";
  // `t / 2` changes every second lane: still a row per pair of lanes.
  EXPECT_TRUE(by["x[pair * len + i]"]->dependsOnThread);
  // A divisor past INT64_MAX (unsigned) is read without overflow: a wide row.
  ASSERT_TRUE(by.count("x[(t / 0x8000000000000000ull) * len + i]"));
  EXPECT_FALSE(by["x[(t / 0x8000000000000000ull) * len + i]"]->dependsOnThread);
}

TEST(Analysis, AThreadOffsetPointerBaseMakesTheAccessPerThread) {
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("lse.cu", "__global__ void k(const float *logits, float *out, int rows, int n) {\n"
                                         "  int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                         "  if (r < rows) {\n"
                                         "    const float *z = logits + (long)r * n;\n"
                                         "    const float *w = logits;\n"
                                         "    float s = 0.0f;\n"
                                         "    for (int k = 0; k < n; ++k) s += z[k] * w[k];\n"
                                         "    out[r] = s;\n"
                                         "  }\n"
                                         "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.loops.size(), 1u);
  bool sawZ = false, sawW = false;
  for (const ArrayAccess &a : m.loops[0].accesses) {
    if (a.array == "z") {
      sawZ = true;
      EXPECT_TRUE(a.dependsOnThread) << "z points at the thread's row";
      EXPECT_FALSE(a.threadContiguous);
      EXPECT_TRUE(a.inductionContiguous);
    }
    if (a.array == "w") {
      sawW = true;
      EXPECT_FALSE(a.dependsOnThread) << "w is the same pointer in every thread";
    }
  }
  EXPECT_TRUE(sawZ);
  EXPECT_TRUE(sawW);
}


// A value is per-thread when it is computed from one, or assigned under a
// thread-dependent condition entered after its declaration: a loop counter
// declared inside `if (col < ncols)` is the same in every thread that runs the
// loop (x[row] is one element for the whole warp), an outer local assigned in
// that branch is not (the threads that skipped it keep the old value).
TEST(Analysis, DivergentBranchMakesOnlyOuterVariablesPerThread) {
  TempDir d;
  AnalysisOptions o;
  o.flags.cudaPath = "none";
  auto tu = analyzeFile(d.file("tmv.cu", "__global__ void k(const float *A, const float *x, float *y, int nrows, int ncols) {\n"
                                         "  int col = blockIdx.x * 128 + threadIdx.x;\n"
                                         "  int last = 0;\n"
                                         "  if (col < ncols) {\n"
                                         "    float s = 0.0f;\n"
                                         "    for (int row = 0; row < nrows; row++) s += A[(size_t)row * ncols + col] * x[row];\n"
                                         "    y[col] = s;\n"
                                         "    last = nrows;\n"
                                         "  }\n"
                                         "  for (int j = 0; j < last; ++j) y[j] += 1.0f;\n"
                                         "}\n"),
                        o);
  ASSERT_TRUE(bool(tu));
  const FileModel &m = (*tu)->model();
  ASSERT_EQ(m.loops.size(), 2u);
  const LoopSite &inner = m.loops[0];
  EXPECT_EQ(inner.tripCount, TripCountClass::Uniform);
  bool sawA = false, sawX = false;
  for (const ArrayAccess &a : inner.accesses) {
    if (a.array == "A") {
      sawA = true;
      EXPECT_TRUE(a.dependsOnThread);
      EXPECT_TRUE(a.threadContiguous);
    }
    if (a.array == "x") {
      sawX = true;
      EXPECT_FALSE(a.dependsOnThread) << "x[row]: row is the same in every thread that runs the loop";
    }
  }
  EXPECT_TRUE(sawA);
  EXPECT_TRUE(sawX);
  EXPECT_EQ(m.loops[1].tripCount, TripCountClass::Irregular) << "'last' differs between the threads that took the branch and the rest";
}
