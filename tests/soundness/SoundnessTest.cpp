// The soundness suite: every loop of the kernels in cases/ carries its ground
// truth on its header line (`// truth: independent|carried|collective|
// unproven`). A carried, collective or unproven loop must get no claim of
// independence (model, hover facts, lint findings) and no rewrite that
// hands its iterations to other threads; an independent loop must keep its
// claim and its offers. Every loop must be annotated, and every annotation
// must name a loop, so that the suite cannot silently stop checking.
#include "nestor/Analysis.h"
#include "nestor/Config.h"
#include "nestor/Lint.h"
#include "nestor/Offers.h"
#include "nestor/Rewrite.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <string>

using namespace nestor;

namespace {

std::map<unsigned, std::string> truthsOf(const std::string &text) {
  std::map<unsigned, std::string> out;
  llvm::Regex re("//.*truth: ([a-z]+)");
  unsigned line = 1;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    llvm::SmallVector<llvm::StringRef, 2> m;
    llvm::StringRef l = llvm::StringRef(text).slice(pos, eol);
    // On a line of code only: a comment line explaining the words is no annotation.
    if (!l.ltrim().starts_with("//") && re.match(l, &m)) out[line] = m[1].str();
    pos = eol + 1;
    ++line;
  }
  return out;
}

/// `NESTOR_UPDATE_GOLDEN=1` (and only that value) rewrites the goldens.
bool updatingGoldens() {
  const char *v = std::getenv("NESTOR_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

/// The offered rewrite's output (default parameters) must equal its golden,
/// tests/soundness/golden/<case>.<function>.<n>.<rewrite>.cu (the n-th loop
/// of the function): those goldens are compiled by nvcc and run against the
/// case on the GPU (tests/soundness/gpu). Returns the golden's name.
void checkGolden(const AnalyzedTU &tu, const LoopSite &l, const std::string &caseName, int nth, const Rewrite &r,
                 std::set<std::string> &expected) {
  std::string stem = caseName.substr(0, caseName.size() - 3);
  std::string name = stem + "." + l.function + "." + std::to_string(nth) + "." + r.id() + ".cu";
  expected.insert(name);
  std::string path = std::string(NESTOR_SOUNDNESS_DIR) + "/golden/" + name;
  auto params = resolveParams(r, RewriteParams{});
  ASSERT_TRUE(bool(params)) << llvm::toString(params.takeError());
  RewriteTarget t{RewriteTarget::Kind::Loop, l.id};
  if (!r.prepare(tu, t, *params).applies) return; // offered only with other parameters: no golden
  auto reps = r.apply(tu, t, *params);
  ASSERT_TRUE(bool(reps)) << name << ": offered but failed to apply: " << llvm::toString(reps.takeError());
  auto text = applyReplacements(tu, *reps);
  ASSERT_TRUE(bool(text)) << name << ": " << llvm::toString(text.takeError());
  if (updatingGoldens()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec) << path << ": " << ec.message();
    os << *text;
    llvm::outs() << "updated " << path << "\n";
    return;
  }
  auto golden = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(golden)) << "missing golden " << path << " (create it with NESTOR_UPDATE_GOLDEN=1, then review it)";
  EXPECT_EQ((*golden)->getBuffer().str(), *text) << name << " differs from its golden";
}

/// The rewrites that would run a loop's iterations on other threads: every
/// rewrite whose target is a loop, asked the way the rules ask the engine
/// (nestor/Offers.h: any variant applies).
std::vector<std::string> offersAt(const AnalyzedTU &tu, const LoopSite &l) {
  std::vector<std::string> out;
  const OfferOracle *oracle = offerOracle();
  EXPECT_NE(oracle, nullptr) << "the rewrite library registers no offer oracle";
  if (!oracle) return out;
  for (const Rewrite *r : allRewrites())
    if (r->targetKind() == RewriteTarget::Kind::Loop && (*oracle)(tu, r->id(), l.id).offered) out.push_back(r->id());
  return out;
}

std::set<std::string> &goldensSeen() {
  static std::set<std::string> seen;
  return seen;
}

/// `withParseErrors`: the case is about code clang could not parse, and must
/// have such errors; every other case must parse cleanly.
void checkCase(const std::string &name, bool goldens = true, bool withParseErrors = false) {
  std::string path = std::string(NESTOR_SOUNDNESS_DIR) + "/cases/" + name;
  auto text = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(text)) << path;
  std::map<unsigned, std::string> truths = truthsOf((*text)->getBuffer().str());
  ASSERT_FALSE(truths.empty()) << name << " has no annotated loop";

  AnalysisOptions opts;
  // The cases' host side uses the loop fixtures' harness (the GPU differential test runs them).
  opts.flags.userFlags = std::vector<std::string>{"-I" + std::string(NESTOR_SOURCE_DIR) + "/tests/fixtures/loops",
                                                  "-I" + std::string(NESTOR_SOURCE_DIR) + "/runtime/include"};
  auto tu = analyzeFile(path, opts);
  ASSERT_TRUE(bool(tu)) << llvm::toString(tu.takeError());
  const FileModel &m = (*tu)->model();
  if (withParseErrors) EXPECT_FALSE(m.parseDiagnostics.empty()) << name << " parsed without an error";
  else
    for (const auto &d : m.parseDiagnostics) ADD_FAILURE() << name << ": parse diagnostic: " << d.message;
  std::vector<Finding> findings = runRules(**tu, Config{});

  std::map<unsigned, int> seen;
  std::map<std::string, int> loopsInFunction;
  for (const LoopSite &l : m.loops) {
    int nth = loopsInFunction[l.function]++;
    unsigned line = l.headerSpan.begin.line;
    auto it = truths.find(line);
    if (it == truths.end()) {
      ADD_FAILURE() << name << ":" << line << ": loop without a ground-truth annotation";
      continue;
    }
    ++seen[line];
    const std::string &truth = it->second;
    std::string where = name + ":" + std::to_string(line) + " (" + l.function + ", truth " + truth + ")";
    std::vector<std::string> offers = offersAt(**tu, l);
    std::vector<std::string> claims;
    for (const Finding &f : findings)
      if (f.data.count("loop") && f.data.at("loop") == std::to_string(l.id) &&
          (f.ruleId == "np-parallel-loop" || f.ruleId == "np-irregular-loop"))
        claims.push_back(f.ruleId);
    if (truth == "independent") {
      EXPECT_TRUE(l.iterationsIndependent())
          << where << ": refused: " << (l.concurrencyRefusal() ? l.concurrencyRefusal()->reason : "");
      // A stride loop's iterations are already spread over the threads: no
      // rewrite distributes it further, so not even the pragma is offered,
      // and the refusal says why. Every other independent loop keeps its offers.
      if (l.inKernel && l.gridStride) {
        EXPECT_TRUE(offers.empty()) << where << ": a stride loop offered " << offers.front();
        Applicability pragma = findRewrite("np-pragma")->prepare(**tu, {RewriteTarget::Kind::Loop, l.id}, {});
        EXPECT_NE(pragma.reason.find("the threads already share its iterations"), std::string::npos)
            << where << ": " << pragma.reason;
      } else if (l.inKernel) {
        EXPECT_NE(std::find(offers.begin(), offers.end(), "np-pragma"), offers.end()) << where << ": lost its offers";
      }
      // Every offer that changes code (np-pragma only adds advice) has a
      // golden the GPU runs against the original.
      for (const std::string &o : offers)
        if (goldens && o != "np-pragma") checkGolden(**tu, l, name, nth, *findRewrite(o), goldensSeen());
      continue;
    }
    ASSERT_TRUE(truth == "carried" || truth == "collective" || truth == "unproven") << where << ": unknown truth";
    EXPECT_FALSE(l.iterationsIndependent()) << where << ": called independent";
    auto why = l.concurrencyRefusal();
    if (why) {
      EXPECT_FALSE(why->reason.empty()) << where;
      EXPECT_TRUE(why->span.valid()) << where << ": the reason names no place: " << why->reason;
    }
    if (truth == "collective")
      EXPECT_TRUE(!l.collectives.empty() || !l.barriers.empty()) << where << ": no collective recognised";
    for (const std::string &o : offers) ADD_FAILURE() << where << ": offered " << o;
    for (const std::string &c : claims) ADD_FAILURE() << where << ": finding " << c << " claims independence";
  }
  for (const auto &[line, truth] : truths)
    EXPECT_TRUE(seen.count(line)) << name << ":" << line << ": annotation '" << truth << "' names no loop";
}

} // namespace

TEST(Soundness, Scalars) { checkCase("scalars.cu"); }
TEST(Soundness, Memory) { checkCase("memory.cu"); }
TEST(Soundness, Collectives) { checkCase("collectives.cu"); }
// Public projects' styles (no host program: no goldens, no GPU run).
TEST(Soundness, RealCodeStyles) { checkCase("realcode.cu", /*goldens=*/false); }
// Code clang could not parse (a file mid-edit, a missing include path or -D).
TEST(Soundness, UnparsedCode) { checkCase("unparsed.cu", /*goldens=*/false, /*withParseErrors=*/true); }

// No golden is left that no offer produces any more (ctest runs each test
// in a process of its own, so this one walks every case itself).
TEST(Soundness, NoStaleGoldens) {
  goldensSeen().clear();
  for (const char *c : {"scalars.cu", "memory.cu", "collectives.cu"}) checkCase(c);
  ASSERT_FALSE(goldensSeen().empty()) << "no offer on any independent loop: the suite checks nothing";
  std::error_code ec;
  std::string dir = std::string(NESTOR_SOUNDNESS_DIR) + "/golden";
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    std::string file = llvm::sys::path::filename(it->path()).str();
    if (llvm::StringRef(file).ends_with(".cu") && !goldensSeen().count(file)) {
      if (updatingGoldens()) llvm::sys::fs::remove(it->path());
      else ADD_FAILURE() << "stale golden " << file << ": no offer produces it (NESTOR_UPDATE_GOLDEN=1 removes it)";
    }
  }
}
