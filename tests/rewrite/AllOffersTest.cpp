// Every offered rewrite applies (issue #21): for every .cu file under
// tests/fixtures, examples/, tests/peer_shapes and the rewrites' own test
// inputs (rewriters/*/tests, not their goldens), at every loop and every launch of the model,
// every rewrite of that target kind, in every variant of its parameter grid,
// that prepare() offers must also apply: apply() returns edits and they apply
// to the analysed text. An offer that cannot be applied is a defect of the edit
// machinery (e.g. two insertions at one offset, which clang's Replacements
// rejected). One test per file (ctest -R rewrite_all_offers).
#include "nestor/Analysis.h"
#include "nestor/RefusalText.h"
#include "nestor/Rewrite.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <tuple>

using namespace nestor;

namespace {

std::vector<std::string> sourceFiles() {
  std::vector<std::string> out;
  // The peer-shapes corpus and the rewrites' test inputs too (issues 21, 25),
  // but not their goldens: those are rewrite outputs, not inputs.
  for (const char *dir : {"tests/fixtures", "examples", "tests/peer_shapes", "rewriters"}) {
    std::error_code ec;
    std::string root = std::string(NESTOR_SOURCE_DIR) + "/" + dir;
    for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end; it != end && !ec; it.increment(ec))
      if (llvm::StringRef(it->path()).ends_with(".cu") && !llvm::StringRef(it->path()).contains("/golden/"))
        out.push_back(it->path().substr(std::string(NESTOR_SOURCE_DIR).size() + 1));
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The line of the one occurrence of `needle` in the file (0: none, or several).
unsigned lineOf(const std::string &file, llvm::StringRef needle) {
  auto buf = llvm::MemoryBuffer::getFile(std::string(NESTOR_SOURCE_DIR) + "/" + file);
  if (!buf) return 0;
  llvm::StringRef text = (*buf)->getBuffer();
  size_t at = text.find(needle);
  if (at == llvm::StringRef::npos || text.find(needle, at + 1) != llvm::StringRef::npos) return 0;
  return unsigned(text.take_front(at).count('\n')) + 1;
}

/// `// flags: ...` lines of a fixture (FixtureTest's convention).
std::vector<std::string> flagsOf(llvm::StringRef text) {
  std::vector<std::string> flags;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (llvm::StringRef l : lines) {
    size_t at = l.find("// flags:");
    if (at == llvm::StringRef::npos) continue;
    std::istringstream in(l.substr(at + 9).str());
    for (std::string f; in >> f;) flags.push_back(f);
  }
  return flags;
}

std::string paramsText(const RewriteParams &p) {
  std::string s;
  for (const auto &[k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

class AllOffers : public ::testing::TestWithParam<std::string> {};

TEST_P(AllOffers, EveryOfferedVariantApplies) {
  const std::string path = std::string(NESTOR_SOURCE_DIR) + "/" + GetParam();
  auto buf = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(buf)) << path;
  AnalysisOptions o;
  o.flags.userFlags = flagsOf((*buf)->getBuffer());
  auto tu = analyzeFile(path, o);
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  const FileModel &m = (*tu)->model();

  std::vector<std::pair<RewriteTarget, unsigned>> targets; // target, line
  for (const LoopSite &l : m.loops) targets.push_back({{RewriteTarget::Kind::Loop, l.id}, l.span.begin.line});
  for (const LaunchSite &l : m.launches) targets.push_back({{RewriteTarget::Kind::Launch, l.id}, l.span.begin.line});

  unsigned offered = 0;
  for (const auto &[t, line] : targets) {
    for (const Rewrite *r : allRewrites()) {
      if (r->targetKind() != t.kind) continue;
      for (const RewriteParams &given : r->variants()) {
        auto params = resolveParams(*r, given);
        ASSERT_TRUE(bool(params)) << llvm::toString(params.takeError());
        if (!r->prepare(**tu, t, *params).applies) continue;
        ++offered;
        const std::string what = GetParam() + ":" + std::to_string(line) + " " + r->id() + " " + paramsText(*params);
        auto edits = r->apply(**tu, t, *params);
        if (!edits) {
          ADD_FAILURE() << what << ": offered, but apply failed: " << llvm::toString(edits.takeError());
          continue;
        }
        EXPECT_FALSE(edits->empty()) << what << ": offered, but makes no edit";
        auto out = applyReplacements(**tu, *edits);
        if (!out) {
          ADD_FAILURE() << what << ": the edits do not apply: " << llvm::toString(out.takeError());
          continue;
        }
        EXPECT_NE(*out, (*tu)->mainFileText().str()) << what << ": the rewritten text is the original";
      }
    }
  }
  RecordProperty("offers", int(offered));
  std::cout << GetParam() << ": " << offered << " offers applied\n";
}

std::string testName(const ::testing::TestParamInfo<std::string> &i) {
  // tests/fixtures/dp/row_tile_sum.cu -> tests_fixtures_dp__row_tile_sum (a
  // directory's slash is "__", so dp_row_tile_sum.cu stays apart).
  std::string n;
  llvm::StringRef p = llvm::StringRef(i.param).drop_back(3); // ".cu"
  for (char c : p) n += c == '/' ? std::string("__") : std::string(1, isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(Files, AllOffers, ::testing::ValuesIn(sourceFiles()), testName);

// The files this test walks include the two shapes of issue #21's report (a
// kernel directly after the #include lines), and each of them is offered the
// rewrites that used to fail there.
TEST(AllOffersFixtures, KernelAfterIncludesIsOfferedTheTemplates) {
  for (const auto &[file, kind, anchor, ids] :
       std::vector<std::tuple<std::string, RewriteTarget::Kind, const char *, std::vector<std::string>>>{
           {"tests/fixtures/edits/loop_after_includes.cu", RewriteTarget::Kind::Loop, "for (int j = rowptr[row];",
            {"dual-queue", "dbuf-shared", "dbuf-global", "dpar-opt"}},
           {"tests/fixtures/edits/launch_after_includes.cu", RewriteTarget::Kind::Launch, "add_one<<<",
            {"threshold", "coarsen", "aggregate", "dbuf-global-launch", "dual-queue-launch", "dbuf-shared-launch",
             "dpar-opt-launch"}}}) {
    auto tu = analyzeFile(std::string(NESTOR_SOURCE_DIR) + "/" + file, AnalysisOptions{});
    ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
    unsigned line = lineOf(file, anchor);
    ASSERT_NE(line, 0u) << file << ": '" << anchor << "' must occur exactly once";
    auto t = targetAtLine((*tu)->model(), kind, line);
    ASSERT_TRUE(t) << file << ":" << line;
    for (const std::string &id : ids) {
      const Rewrite *r = findRewrite(id);
      ASSERT_TRUE(r) << id;
      auto p = resolveParams(*r, {});
      ASSERT_TRUE(bool(p));
      Applicability a = r->prepare(**tu, *t, *p);
      EXPECT_TRUE(a.applies) << file << " " << id << ": " << a.reason;
    }
  }
}

} // namespace

namespace {

// Refusals as front ends show them (nestor/RefusalText.h).
TEST(RefusalText, NamesTheBlockersLineOnceAndItsFileWhenAHeader) {
  SourceSpan here;
  here.file = "/src/mst.cu";
  here.begin.line = 170;
  here.begin.column = 3;
  here.begin.offset = 1000;
  // Not repeated when the reason names it.
  EXPECT_EQ(refusalText(Applicability::no("uses the __shared__ 'tile' (line 170)", here), "mst.cu"),
            "uses the __shared__ 'tile' (line 170)");
  // Appended when it does not (line 17 is another line).
  EXPECT_EQ(refusalText(Applicability::no("the loop at line 17 carries state", here), "/src/mst.cu"),
            "the loop at line 17 carries state (line 170)");
  // In a header: its file, in the reason and not again after it.
  SourceSpan header = here;
  header.file = "/src/include/graph.h";
  EXPECT_EQ(refusalText(Applicability::no("uses the __shared__ 'tile' (line 170)", header), "/src/mst.cu"),
            "uses the __shared__ 'tile' (graph.h:170)");
  EXPECT_EQ(refusalText(Applicability::no("calls a host function", header), "/src/mst.cu"),
            "calls a host function (graph.h:170)");
  EXPECT_EQ(lineRef(header, "/src/mst.cu"), "graph.h:170");
  EXPECT_EQ(lineRef(here, "mst.cu"), "line 170");
  // No blocker: the reason alone.
  EXPECT_EQ(refusalText(Applicability::no("no loop here"), "/src/mst.cu"), "no loop here");
}

} // namespace
