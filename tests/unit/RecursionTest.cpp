// Recursion analysis (RecursionAnalysis.cpp, nestor/Recursion.h): the shape
// of the tree kernels in examples/trees and the reasons given for every
// other shape, in the model and in its JSON.
#include "nestor/Analysis.h"
#include "nestor/ModelJson.h"
#include "nestor/Recursion.h"

#include "clang/AST/Decl.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace nestor;

namespace {
const std::string kSource = NESTOR_SOURCE_DIR;

std::unique_ptr<AnalyzedTU> analyse(const std::string &path, std::optional<std::string> contents = std::nullopt) {
  AnalysisOptions o;
  o.flags.userFlags = std::vector<std::string>{"-I" + kSource + "/examples/trees"};
  o.contents = std::move(contents);
  auto tu = analyzeFile(path, o);
  if (!tu) {
    ADD_FAILURE() << llvm::toString(tu.takeError());
    return nullptr;
  }
  return std::move(*tu);
}

const RecursionShape &shapeOf(const AnalyzedTU &tu, const std::string &kernel) {
  const Kernel *k = tu.model().findKernel(kernel);
  static const RecursionShape none;
  if (!k || !k->recursion) {
    ADD_FAILURE() << kernel << " has no recursion shape";
    return none;
  }
  return *k->recursion;
}
} // namespace

TEST(Recursion, DescendantsIsOverCsrChildrenWithATailLaunchedCombination) {
  auto tu = analyse(kSource + "/examples/trees/descendants.cu");
  ASSERT_TRUE(tu);
  const RecursionShape &r = shapeOf(*tu, "descendants");
  EXPECT_TRUE(r.supported) << r.reason;
  EXPECT_EQ(r.nodeParam, "node");
  EXPECT_EQ(r.offsets, "child_offsets");
  EXPECT_EQ(r.children, "children");
  EXPECT_EQ(r.childVar, "child");
  EXPECT_EQ(r.condition, "grandchildren > 0");
  EXPECT_EQ(r.postOrderKernel, "add_children");
  ASSERT_GE(r.selfLaunch, 0);
  ASSERT_GE(r.postOrderLaunch, 0);
  EXPECT_EQ(tu->model().launches[size_t(r.selfLaunch)].span.begin.line, 34u);
  EXPECT_EQ(tu->model().launches[size_t(r.postOrderLaunch)].stream, "cudaStreamTailLaunch");
  ASSERT_EQ(r.hostLaunches.size(), 1u);
  EXPECT_EQ(tu->model().launches[size_t(r.hostLaunches[0])].parent, "run");
  EXPECT_TRUE(r.depthParam.empty());
  // The post-order kernel is not recursive and has no shape.
  EXPECT_FALSE(tu->model().findKernel("add_children")->recursion.has_value());
  // The JSON carries the same.
  llvm::json::Value v = toJSON(*tu->model().findKernel("descendants"));
  const llvm::json::Object *rec = v.getAsObject()->getObject("recursion");
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->getBoolean("supported"), true);
  EXPECT_EQ(rec->getString("post_order_kernel"), "add_children");
  EXPECT_EQ(rec->getString("condition"), "grandchildren > 0");
  EXPECT_EQ(rec->getInteger("self_launch"), r.selfLaunch);
  // rec-hier may ask the condition ahead of the pre-order statements.
  RecursionMatch m = matchRecursion(tu->functionDecl("descendants"), tu->astContext());
  EXPECT_TRUE(m.conditionOnTreeOnly) << m.conditionNotOnTree;
}

TEST(Recursion, EarlyReturnGuardAndPreOrderOnly) {
  auto tu = analyse(kSource + "/examples/trees/heights.cu");
  ASSERT_TRUE(tu);
  const RecursionShape &h = shapeOf(*tu, "heights");
  EXPECT_TRUE(h.supported) << h.reason;
  EXPECT_EQ(h.condition, "child_offsets[child + 1] > child_offsets[child]");
  EXPECT_EQ(h.postOrderKernel, "max_of_children");
  auto levels = analyse(kSource + "/examples/trees/tree_levels.cu");
  ASSERT_TRUE(levels);
  const RecursionShape &l = shapeOf(*levels, "tree_levels");
  EXPECT_TRUE(l.supported) << l.reason;
  EXPECT_EQ(l.postOrderLaunch, -1);
  EXPECT_TRUE(l.postOrderKernel.empty());
}

TEST(Recursion, EveryOtherShapeHasAReasonWithItsLine) {
  auto tu = analyse(kSource + "/tests/fixtures/recursion/refusals.cu");
  ASSERT_TRUE(tu);
  struct Want {
    const char *kernel, *reason;
    unsigned line;
  };
  for (const Want &w : {Want{"binary", "not over CSR children", 4}, Want{"carried", "state carried between siblings", 12},
                        Want{"needs_result", "needs the child's results", 22}, Want{"with_shared", "__shared__ 'seen'", 27},
                        Want{"with_barrier", "calls __syncthreads", 38}}) {
    const RecursionShape &r = shapeOf(*tu, w.kernel);
    EXPECT_FALSE(r.supported) << w.kernel;
    EXPECT_NE(r.reason.find(w.reason), std::string::npos) << w.kernel << ": " << r.reason;
    EXPECT_EQ(r.reasonSpan.begin.line, w.line) << w.kernel << ": " << r.reason;
  }
}

TEST(Recursion, DepthParameterAndItsBound) {
  auto tu = analyse(kSource + "/tests/fixtures/recursion/refusals.cu");
  ASSERT_TRUE(tu);
  const RecursionShape &r = shapeOf(*tu, "bounded");
  EXPECT_TRUE(r.supported) << r.reason;
  EXPECT_EQ(r.depthParam, "depth");
  EXPECT_EQ(r.depthBound, "depth + 1 < max_depth");
  ASSERT_EQ(r.varyingParams.size(), 1u);
  EXPECT_EQ(r.varyingParams[0], "depth = depth + 1");
  // The graph BFS recurses on the result of an atomic: supported, but not from the tree alone.
  const RecursionShape &g = shapeOf(*tu, "graph_bfs");
  EXPECT_TRUE(g.supported) << g.reason;
  RecursionMatch m = matchRecursion(tu->functionDecl("graph_bfs"), tu->astContext());
  EXPECT_FALSE(m.conditionOnTreeOnly);
  EXPECT_NE(m.conditionNotOnTree.find("'old'"), std::string::npos) << m.conditionNotOnTree;
}

TEST(Recursion, MutualRecursionAndOtherLaunchersAreNamed) {
  std::string src = "__global__ void b(unsigned *v, unsigned n);\n"
                    "__global__ void a(unsigned *v, unsigned n) { if (n) b<<<1, 1>>>(v, n - 1); }\n"
                    "__global__ void b(unsigned *v, unsigned n) { if (n) a<<<1, 1>>>(v, n - 1); }\n"
                    "__global__ void self(const unsigned *off, const unsigned *kids, unsigned node) {\n"
                    "  unsigned slot = off[node] + blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (slot < off[node + 1]) {\n"
                    "    unsigned child = kids[slot];\n"
                    "    self<<<1, 32>>>(off, kids, child);\n"
                    "  }\n"
                    "}\n"
                    "__global__ void starter(const unsigned *off, const unsigned *kids) { self<<<1, 32>>>(off, kids, 0u); }\n";
  auto tu = analyse(kSource + "/tests/fixtures/recursion/inline.cu", src);
  ASSERT_TRUE(tu);
  const RecursionShape &a = shapeOf(*tu, "a");
  EXPECT_FALSE(a.supported);
  EXPECT_NE(a.reason.find("recurses through a call, not a launch of itself"), std::string::npos) << a.reason;
  const RecursionShape &s = shapeOf(*tu, "self");
  EXPECT_FALSE(s.supported);
  EXPECT_NE(s.reason.find("also launched from starter (line 11)"), std::string::npos) << s.reason;
}

TEST(Recursion, LoopsOverTheChildren) {
  auto tu = analyse(kSource + "/examples/trees/tree_levels_serial.cu");
  ASSERT_TRUE(tu);
  const RecursionShape &serial = shapeOf(*tu, "levels_serial");
  EXPECT_TRUE(serial.supported) << serial.reason;
  EXPECT_NE(serial.mapping.find("one thread (a <<<1, 1>>> grid) loops over"), std::string::npos) << serial.mapping;
  EXPECT_TRUE(matchRecursion(tu->functionDecl("levels_serial"), tu->astContext()).serialLoop);
  auto fx = analyse(kSource + "/tests/fixtures/recursion/refusals.cu");
  ASSERT_TRUE(fx);
  const RecursionShape &strided = shapeOf(*fx, "strided");
  EXPECT_TRUE(strided.supported) << strided.reason;
  EXPECT_FALSE(matchRecursion(fx->functionDecl("strided"), fx->astContext()).serialLoop);
  const RecursionShape &sum = shapeOf(*fx, "sibling_sum");
  EXPECT_FALSE(sum.supported);
  EXPECT_NE(sum.reason.find("writes 'before', declared outside the per-child part: state carried between siblings"),
            std::string::npos)
      << sum.reason;
  const RecursionShape &wide = shapeOf(*fx, "serial_wide");
  EXPECT_FALSE(wide.supported);
  EXPECT_EQ(wide.reasonSpan.begin.line, 109u) << wide.reason;
}

// Li, Wu and Becchi's recursive BFS form: children counted from threadIdx.x
// in one-block grids through a local count, the launch inside the child's
// `if`s after an atomicMin relaxation. Same CSR recursion; its condition is
// decided inside the child's statements.
TEST(Recursion, CountedChildrenWithTheLaunchInsideTheChildsStatements) {
  AnalysisOptions o;
  o.flags.userFlags = std::vector<std::string>{"-I" + kSource + "/examples/graph"};
  auto tu = analyzeFile(kSource + "/tests/fixtures/recursion/bfs_rec.cu", o);
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  const RecursionShape &r = shapeOf(**tu, "bfs_dp");
  EXPECT_TRUE(r.supported) << r.reason;
  EXPECT_EQ(r.nodeParam, "vertex");
  EXPECT_EQ(r.offsets, "row_start");
  EXPECT_EQ(r.children, "adjacency");
  EXPECT_EQ(r.childVar, "nb");
  EXPECT_EQ(r.slotVar, "k");
  EXPECT_NE(r.mapping.find("one block per node"), std::string::npos) << r.mapping;
  EXPECT_EQ(r.condition, "decided inside the child's statements (line 34)");
  const clang::FunctionDecl *fd = (*tu)->functionDecl("bfs_dp");
  ASSERT_TRUE(fd);
  RecursionMatch m = matchRecursion(fd->getDefinition(), (*tu)->astContext());
  EXPECT_TRUE(m.oneBlockPerNode);
  EXPECT_TRUE(m.launchInChildStatements);
  EXPECT_FALSE(m.conditionOnTreeOnly);
  EXPECT_EQ(m.condition, nullptr);
  // mine, theirs and the `if` nest that holds the launch.
  EXPECT_EQ(m.pre.size(), 3u);
}

// A child's statements that read its slot (its position among its
// siblings): the rewrites pass it on, absolute or counted from 0 as the
// original's slot is; one that writes it is refused.
TEST(Recursion, TheChildsStatementsMayReadTheSlot) {
  for (const char *program : {"dewey_labels", "dewey_labels_counted"}) {
    auto tu = analyse(kSource + "/examples/trees/" + program + ".cu");
    ASSERT_TRUE(tu);
    const RecursionShape &r = shapeOf(*tu, program);
    EXPECT_TRUE(r.supported) << program << ": " << r.reason;
    RecursionMatch m = matchRecursion(tu->functionDecl(program), tu->astContext());
    EXPECT_TRUE(m.preReadsSlot) << program;
    EXPECT_EQ(m.slotRelative, std::string(program) == "dewey_labels_counted") << program;
  }
  auto tu = analyse(kSource + "/examples/trees/tree_levels.cu");
  ASSERT_TRUE(tu);
  EXPECT_FALSE(matchRecursion(tu->functionDecl("tree_levels"), tu->astContext()).preReadsSlot);
  auto fx = analyse(kSource + "/tests/fixtures/recursion/refusals.cu");
  ASSERT_TRUE(fx);
  const RecursionShape &moves = shapeOf(*fx, "moves_slot");
  EXPECT_FALSE(moves.supported);
  EXPECT_NE(moves.reason.find("writes the slot 's' (line 118)"), std::string::npos) << moves.reason;
}

// The same form with one fault each: the reason names it.
TEST(Recursion, CountedChildrenRefusalsNameTheConstruct) {
  auto tu = analyse(kSource + "/tests/fixtures/recursion/counted.cu");
  ASSERT_TRUE(tu);
  EXPECT_NE(shapeOf(*tu, "count_wide").reason.find("grid is 2 blocks, not one block"), std::string::npos)
      << shapeOf(*tu, "count_wide").reason;
  EXPECT_NE(shapeOf(*tu, "count_local").reason.find("read 'first'"), std::string::npos) << shapeOf(*tu, "count_local").reason;
  EXPECT_NE(shapeOf(*tu, "count_loop").reason.find("inside a loop"), std::string::npos) << shapeOf(*tu, "count_loop").reason;
  EXPECT_NE(shapeOf(*tu, "count_after").reason.find("statement after the self-launch"), std::string::npos)
      << shapeOf(*tu, "count_after").reason;
  // Its own form is fine: only its host launch (4 blocks) is refused, by the rewrites.
  EXPECT_TRUE(shapeOf(*tu, "count_host_wide").supported) << shapeOf(*tu, "count_host_wide").reason;
}
