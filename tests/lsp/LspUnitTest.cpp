// Unit tests of the language server's pieces: position mapping, incremental
// edits, hover and completion text, and the features on a real analysis
// (diagnostics, quick fix, code lens, profile candidates, preamble reuse).
#include "Document.h"
#include "CodeActions.h"
#include "Features.h"

#include "nestor/Analysis.h"
#include "nestor/Lint.h"
#include "nestor/Pragma.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

using namespace nestor;
using namespace nestor::lsp;
using llvm::lsp::Position;
using llvm::lsp::Range;
using llvm::lsp::TextDocumentContentChangeEvent;

namespace {

size_t offsetOrDie(llvm::StringRef text, Position p, bool clamp = false) {
  auto off = offsetAt(text, p, clamp);
  if (!off) {
    ADD_FAILURE() << llvm::toString(off.takeError());
    return 0;
  }
  return *off;
}

TEST(Positions, AsciiRoundTrip) {
  std::string text = "ab\ncde\n\nf";
  EXPECT_EQ(lineCount(text), 4u);
  EXPECT_EQ(offsetOrDie(text, Position(0, 0)), 0u);
  EXPECT_EQ(offsetOrDie(text, Position(1, 2)), 5u);
  EXPECT_EQ(offsetOrDie(text, Position(1, 3)), 6u); // end of line is valid
  EXPECT_EQ(offsetOrDie(text, Position(3, 1)), 9u);
  for (size_t off = 0; off <= text.size(); ++off) {
    Position p = positionAt(text, off);
    EXPECT_EQ(offsetOrDie(text, p), off) << "offset " << off;
  }
  EXPECT_EQ(lineText(text, 1), "cde");
  EXPECT_EQ(lineText(text, 7), "");
}

TEST(Positions, Utf16CodeUnits) {
  // "é" is 2 bytes / 1 UTF-16 unit, "😀" is 4 bytes / 2 units.
  std::string text = "a\xC3\xA9" "b\xF0\x9F\x98\x80" "c";
  EXPECT_EQ(offsetOrDie(text, Position(0, 2)), 3u);  // after é
  EXPECT_EQ(offsetOrDie(text, Position(0, 3)), 4u);  // after b
  EXPECT_EQ(offsetOrDie(text, Position(0, 5)), 8u);  // after the emoji
  EXPECT_EQ(offsetOrDie(text, Position(0, 6)), 9u);  // after c
  EXPECT_EQ(positionAt(text, 8).character, 5);
  EXPECT_EQ(positionAt(text, 9).character, 6);
}

TEST(Positions, OutOfRangeIsAnErrorNotACrash) {
  std::string text = "one\ntwo";
  auto pastLine = offsetAt(text, Position(5, 0));
  ASSERT_FALSE(pastLine);
  EXPECT_NE(llvm::toString(pastLine.takeError()).find("2 lines"), std::string::npos);
  auto pastColumn = offsetAt(text, Position(0, 9));
  ASSERT_FALSE(pastColumn);
  llvm::consumeError(pastColumn.takeError());
  EXPECT_EQ(offsetOrDie(text, Position(0, 9), /*clamp=*/true), 3u);
  auto negative = offsetAt(text, Position(-1, 0));
  ASSERT_FALSE(negative);
  llvm::consumeError(negative.takeError());
  EXPECT_EQ(positionAt(text, 1000).line, 1); // past the end: the end
}

TEST(Positions, CrLfLinesExcludeTheCarriageReturn) {
  std::string text = "ab\r\ncd";
  EXPECT_EQ(lineText(text, 0), "ab");
  EXPECT_EQ(offsetOrDie(text, Position(1, 1)), 5u);
}

TEST(Positions, LineIndexAgreesWithTheScan) {
  // ASCII, CRLF, 2- and 4-byte sequences, invalid and truncated bytes,
  // empty lines, no final newline.
  for (std::string text : {std::string("ab\ncde\n\nf"), std::string("a\r\nb\xC3\xA9\r\n\xF0\x9F\x98\x80x\n"),
                           std::string("\xFF\xC3\n\xE2\x82\n\xF0\x9F\n"), std::string(""), std::string("\n\n")}) {
    LineIndex index(text);
    for (size_t off = 0; off <= text.size() + 2; ++off) {
      Position a = positionAt(text, off), b = index.positionAt(text, off);
      EXPECT_EQ(a.line, b.line) << "offset " << off;
      EXPECT_EQ(a.character, b.character) << "offset " << off;
    }
    for (int line = -1; line <= int(lineCount(text)) + 1; ++line)
      for (int ch = -1; ch <= 8; ++ch)
        for (bool clamp : {false, true}) {
          auto a = offsetAt(text, Position(line, ch), clamp), b = index.offsetAt(text, Position(line, ch), clamp);
          ASSERT_EQ(bool(a), bool(b)) << line << ":" << ch;
          if (a) EXPECT_EQ(*a, *b) << line << ":" << ch;
          else {
            EXPECT_EQ(llvm::toString(a.takeError()), llvm::toString(b.takeError()));
          }
        }
  }
}

TEST(Positions, InsideASurrogatePairMapsToTheEndOfTheCodePoint) {
  std::string text = "x\xF0\x9F\x98\x80y"; // x, U+1F600 (2 UTF-16 units), y
  LineIndex index(text);
  EXPECT_EQ(*index.offsetAt(text, Position(0, 2)), 5u); // between the two surrogates
  EXPECT_EQ(*index.offsetAt(text, Position(0, 3)), 5u);
  EXPECT_EQ(index.positionAt(text, 3).character, 3);  // a byte inside the sequence
}

TEST(TextDeltas, MapOffsetsAroundTheChangedRegion) {
  TextDelta d = TextDelta::between("abcdef", "abXYZdef"); // "c" -> "XYZ"
  EXPECT_EQ(d.prefix, 2u);
  EXPECT_EQ(d.oldEnd, 3u);
  EXPECT_EQ(d.newEnd, 5u);
  EXPECT_EQ(d.toOld(1), std::optional<size_t>(1));
  EXPECT_EQ(d.toOld(3), std::nullopt);              // inside the new text
  EXPECT_EQ(d.toOld(6), std::optional<size_t>(4));  // 'e'
  EXPECT_EQ(d.toNew(4), std::optional<size_t>(6));
  EXPECT_EQ(d.toNew(2), std::nullopt);              // the replaced 'c'
  EXPECT_TRUE(d.keeps(0, 1));
  EXPECT_TRUE(d.keeps(4, 5));
  EXPECT_FALSE(d.keeps(1, 2)); // touches the region
  EXPECT_FALSE(d.keeps(0, 5)); // spans it
  TextDelta same = TextDelta::between("abc", "abc");
  EXPECT_TRUE(same.unchanged());
  EXPECT_EQ(same.toOld(1), std::optional<size_t>(1));
  TextDelta repeated = TextDelta::between("aaaa", "aaaaa"); // prefix and suffix must not overlap
  EXPECT_LE(repeated.prefix, repeated.oldEnd);
  EXPECT_EQ(repeated.newEnd - repeated.prefix, 1u);
  // Texts longer than the comparison blocks, changed off a block boundary.
  std::string big(20000, 'x');
  for (size_t i = 0; i < big.size(); i += 7) big[i] = char('a' + i % 23);
  std::string edited = big;
  edited.replace(9001, 3, "CHANGED");
  TextDelta b = TextDelta::between(big, edited);
  EXPECT_EQ(b.prefix, 9001u);
  EXPECT_EQ(b.oldEnd, 9004u);
  EXPECT_EQ(b.newEnd, 9008u);
  EXPECT_EQ(b.toOld(15000), std::optional<size_t>(14996));
  TextDelta longSame = TextDelta::between(big, big);
  EXPECT_TRUE(longSame.unchanged());
}

TextDocumentContentChangeEvent change(int l0, int c0, int l1, int c1, std::string text) {
  TextDocumentContentChangeEvent e;
  e.range = Range(Position(l0, c0), Position(l1, c1));
  e.text = std::move(text);
  return e;
}

TEST(IncrementalEdits, InsertReplaceDelete) {
  std::string text = "int a;\nint b;\n";
  ASSERT_FALSE(applyChange(text, change(1, 4, 1, 5, "bb")));
  EXPECT_EQ(text, "int a;\nint bb;\n");
  ASSERT_FALSE(applyChange(text, change(0, 0, 0, 0, "// x\n")));
  EXPECT_EQ(text, "// x\nint a;\nint bb;\n");
  ASSERT_FALSE(applyChange(text, change(0, 0, 1, 0, "")));
  EXPECT_EQ(text, "int a;\nint bb;\n");
  ASSERT_FALSE(applyChange(text, change(2, 0, 2, 0, "int c;")));
  EXPECT_EQ(text, "int a;\nint bb;\nint c;");
}

TEST(IncrementalEdits, SequenceAppliesInOrderAndFullTextReplaces) {
  std::string text = "abc";
  std::vector<TextDocumentContentChangeEvent> changes = {change(0, 3, 0, 3, "d"), change(0, 0, 0, 1, "")};
  ASSERT_FALSE(applyChanges(text, changes));
  EXPECT_EQ(text, "bcd");
  TextDocumentContentChangeEvent full;
  full.text = "new";
  ASSERT_FALSE(applyChange(text, full));
  EXPECT_EQ(text, "new");
}

TEST(IncrementalEdits, BadRangeLeavesTheTextUnchanged) {
  std::string text = "abc\ndef";
  std::vector<TextDocumentContentChangeEvent> changes = {change(0, 0, 0, 1, "X"), change(9, 0, 9, 1, "Y")};
  llvm::Error err = applyChanges(text, changes);
  ASSERT_TRUE(bool(err));
  llvm::consumeError(std::move(err));
  EXPECT_EQ(text, "abc\ndef");
  llvm::Error reversed = applyChange(text, change(1, 2, 0, 1, ""));
  ASSERT_TRUE(bool(reversed));
  EXPECT_NE(llvm::toString(std::move(reversed)).find("ends before it starts"), std::string::npos);
}

NpPragma parse(const std::string &text) { return parseNpPragma(text, PragmaTextOrigin{}); }

TEST(Hover, ValidPragmaExplainsClausesAndSlaveCounts) {
  NpPragma p = parse("np parallel for reduction(+:sum) num_threads(8)");
  ASSERT_TRUE(p.valid());
  std::string md = pragmaHover(p, nullptr, {});
  EXPECT_EQ(md.substr(0, md.find('\n')), "**#pragma np parallel for**");
  EXPECT_NE(md.find("✓ Valid"), std::string::npos);
  EXPECT_NE(md.find("`reduction(+:sum)`"), std::string::npos);
  EXPECT_NE(md.find("partial results are reduced"), std::string::npos); // npClauses() meaning
  EXPECT_NE(md.find("`num_threads(8)`"), std::string::npos);
  EXPECT_NE(md.find("Recommended slave counts**: 4 or 8"), std::string::npos);
  EXPECT_NE(md.find("×8"), std::string::npos);                         // what it generates
  EXPECT_NE(md.find("`np_type`: both inter- and intra-warp"), std::string::npos);
}

TEST(Hover, InvalidPragmaSaysWhy) {
  NpPragma p = parse("np parallel for reduction(%:x)");
  ASSERT_FALSE(p.valid());
  std::vector<std::string> problems;
  for (const PragmaError &e : p.errors) problems.push_back(e.message);
  std::string md = pragmaHover(p, nullptr, problems);
  EXPECT_NE(md.find("✗ Not valid"), std::string::npos);
  EXPECT_NE(md.find(problems.front()), std::string::npos);
}

std::vector<std::string> labels(const std::optional<llvm::json::Array> &items) {
  std::vector<std::string> out;
  if (!items) return out;
  for (const llvm::json::Value &v : *items) out.push_back(v.getAsObject()->getString("label")->str());
  return out;
}

TEST(Completion, ClausesOperatorsAndValues) {
  // The grammar of CUDA-NP's pragma (docs), written out here: comparing the
  // completions with npClauses()/npOperators(), the lists they are made from,
  // could not fail whatever those lists held.
  auto clauses = labels(pragmaCompletions("  #pragma np parallel for "));
  EXPECT_EQ(clauses, (std::vector<std::string>{"reduction", "scan", "copyin", "num_threads", "np_type", "sm_version"}));
  auto ops = labels(pragmaCompletions("#pragma np parallel for reduction("));
  EXPECT_EQ(ops, (std::vector<std::string>{"+", "*", "max", "min", "&", "|", "^", "&&", "||"}));
  // Every operator offered is one the parser accepts.
  for (const std::string &op : ops) {
    NpPragma p = parseNpPragma("np parallel for reduction(" + op + ":sum)", PragmaTextOrigin{});
    EXPECT_TRUE(p.valid()) << op << ": " << (p.errors.empty() ? "" : p.errors.front().message);
  }
  auto types = labels(pragmaCompletions("#pragma np parallel for np_type("));
  EXPECT_EQ(types, (std::vector<std::string>{"inter", "intra"}));
  auto counts = labels(pragmaCompletions("#pragma np parallel for num_threads("));
  ASSERT_GE(counts.size(), 2u);
  EXPECT_EQ(counts[0], "4");
  EXPECT_EQ(counts[1], "8");
  EXPECT_EQ(labels(pragmaCompletions("#pragma np ")), (std::vector<std::string>{"parallel for"}));
  EXPECT_FALSE(pragmaCompletions("int x = 1;"));
  EXPECT_FALSE(pragmaCompletions("#pragma unroll"));
  EXPECT_FALSE(pragmaCompletions("#pragma npx"));
}

// ---- on a real analysis -----------------------------------------------------

const char *kTmv = R"(// Transposed matrix-vector product.
__global__ void tmv(const float *a, const float *b, float *c, int w, int h) {
  int tx = threadIdx.x + blockIdx.x * blockDim.x;
  float sum = 0;
  for (int i = 0; i < h; i++)
    sum += a[i * w + tx] * b[i];
  c[tx] = sum;
}
)";

class OnAnalysis : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nestor-lsp-unit", dir));
    dir_ = std::string(dir);
    path_ = dir_ + "/tmv.cu";
    uri_ = llvm::cantFail(llvm::lsp::URIForFile::fromFile(path_));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir_); }

  Snapshot analyse(const std::string &text, int64_t version, PreambleCache *cache = nullptr) {
    Snapshot s;
    s.version = version;
    s.text = text;
    s.lines = LineIndex(text);
    AnalysisOptions opts;
    opts.contents = text;
    auto tu = analyzeFile(path_, opts, cache);
    if (!tu) {
      s.error = llvm::toString(tu.takeError());
      ADD_FAILURE() << *s.error;
      return s;
    }
    s.tu = std::move(*tu);
    s.findings = runRules(*s.tu, s.config);
    return s;
  }

  std::string dir_, path_;
  llvm::lsp::URIForFile uri_;
};

TEST_F(OnAnalysis, DiagnosticCarriesRuleDocsAndVersion) {
  Snapshot s = analyse(kTmv, 7);
  std::vector<Diagnostic> diags = diagnosticsFor(s, uri_);
  auto it = std::find_if(diags.begin(), diags.end(), [](const Diagnostic &d) { return d.code == "np-parallel-loop"; });
  ASSERT_NE(it, diags.end());
  EXPECT_EQ(it->base.range.start.line, 4);
  EXPECT_EQ(it->base.range.start.character, 2);
  EXPECT_EQ(it->base.source, "nestor");
  EXPECT_NE(it->codeHref.find("np-parallel-loop"), std::string::npos);
  EXPECT_EQ(it->data.getInteger("version"), 7);
  EXPECT_TRUE(it->data.getString("loop").has_value());
  llvm::json::Value json = toJSON(*it);
  EXPECT_EQ(json.getAsObject()->getString("code"), std::optional<llvm::StringRef>("np-parallel-loop"));
  EXPECT_TRUE(json.getAsObject()->getObject("codeDescription"));
}

TEST_F(OnAnalysis, QuickFixIsVersionedAndRewritesResolveLazily) {
  Snapshot s = analyse(kTmv, 3);
  CodeActionRequest req;
  req.uri = uri_;
  req.begin = req.end = std::string(kTmv).find("for (");
  req.resolveEdits = true;
  llvm::json::Array actions = codeActions(s, req);
  const llvm::json::Object *quickfix = nullptr, *rewrite = nullptr;
  for (const llvm::json::Value &a : actions) {
    const llvm::json::Object *o = a.getAsObject();
    if (o->getString("kind") == std::optional<llvm::StringRef>("quickfix")) quickfix = o;
    if (o->getString("kind") == std::optional<llvm::StringRef>("refactor.rewrite") && o->getObject("data")) rewrite = o;
  }
  ASSERT_TRUE(quickfix);
  EXPECT_EQ(quickfix->getString("title"), std::optional<llvm::StringRef>("Insert #pragma np parallel for reduction(+:sum)"));
  EXPECT_EQ(quickfix->getBoolean("isPreferred"), std::optional<bool>(true));
  const llvm::json::Object *docChange =
      (*quickfix->getObject("edit")->getArray("documentChanges"))[0].getAsObject();
  EXPECT_EQ(docChange->getObject("textDocument")->getInteger("version"), 3);
  const llvm::json::Object *edit = (*docChange->getArray("edits"))[0].getAsObject();
  EXPECT_EQ(edit->getString("newText"), std::optional<llvm::StringRef>("  #pragma np parallel for reduction(+:sum)\n"));

  ASSERT_TRUE(rewrite) << "no applicable refactor.rewrite at the loop";
  EXPECT_FALSE(rewrite->get("edit")); // computed in codeAction/resolve
  auto resolved = resolveCodeAction(s, llvm::json::Value(llvm::json::Object(*rewrite)), true);
  ASSERT_TRUE(bool(resolved)) << llvm::toString(resolved.takeError());
  EXPECT_TRUE(resolved->getAsObject()->getObject("edit"));

  // The same action against another version is refused, never applied.
  Snapshot newer = analyse(kTmv, 4);
  auto stale = resolveCodeAction(newer, llvm::json::Value(llvm::json::Object(*rewrite)), true);
  ASSERT_FALSE(bool(stale));
  std::string why = llvm::toString(stale.takeError());
  EXPECT_NE(why.find("changed"), std::string::npos) << why;
}

TEST_F(OnAnalysis, LoopHoverShowsTheTopThreeOffersAndWhy) {
  // CSR SpMV launched here: the rewrites apply, and the hover shows the one
  // ranking's first three with their estimates, commands and cost breakdown.
  const std::string spmv = R"(__global__ void spmv(const int *rp, const int *col, const float *val, const float *x,
                     float *y, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int e = rp[row]; e < rp[row + 1]; ++e)
    sum += val[e] * x[col[e]];
  y[row] = sum;
}
void run(const int *rp, const int *col, const float *val, const float *x, float *y) {
  spmv<<<1024, 256>>>(rp, col, val, x, y, 262144);
}
)";
  Snapshot s = analyse(spmv, 1);
  Range range;
  auto md = hoverAt(s, spmv.find("for (") + 1, range);
  ASSERT_TRUE(md);
  EXPECT_NE(md->find("**Estimated time** (cost model, docs/mapping.md): original \u2248 "), std::string::npos) << *md;
  EXPECT_EQ(md->find("**Keep the original**"), std::string::npos) << *md;
  for (const char *rank : {"\n1. ", "\n2. ", "\n3. "}) {
    size_t at = md->find(rank);
    ASSERT_NE(at, std::string::npos) << rank << " in " << *md;
    std::string line = md->substr(at + 1, md->find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find(" (estimate), `--apply "), std::string::npos) << line;
    EXPECT_NE(line.find(" kernel(s)"), std::string::npos) << "the cost breakdown: " << line;
  }
  EXPECT_EQ(md->find("\n4. "), std::string::npos) << "three, not more: " << *md;
}

TEST_F(OnAnalysis, LoopHoverPlacesTheOriginalAtItsRank) {
  // 16-element row norms: two intra-warp offers are estimated faster than
  // the original, the rest slower. The hover's top three are the one
  // ranking's (placeOriginal, as `rewrite --list` and the planner): the two
  // faster offers, then "Keep the original".
  const std::string norms = R"(__global__ void row_norms(const float *data, float *norms, int n) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n) {
    float ss = 0.0f;
    for (int d = 0; d < 16; ++d) {
      float v = data[(size_t)p * 16 + d];
      ss += v * v;
    }
    norms[p] = ss;
  }
}
void run(const float *data, float *norms) { row_norms<<<8192, 128>>>(data, norms, 1048576); }
)";
  Snapshot s = analyse(norms, 1);
  Range range;
  auto md = hoverAt(s, norms.find("for (") + 1, range);
  ASSERT_TRUE(md);
  EXPECT_EQ(md->find("**Keep the original**"), std::string::npos) << *md;
  size_t first = md->find("\n1. "), second = md->find("\n2. "), third = md->find("\n3. Keep the original: \u2248 ");
  ASSERT_NE(first, std::string::npos) << *md;
  ASSERT_NE(second, std::string::npos) << *md;
  ASSERT_NE(third, std::string::npos) << "the original third: " << *md;
  EXPECT_NE(md->substr(first, second - first).find("intra-warp"), std::string::npos) << *md;
  EXPECT_EQ(md->find("\n4. "), std::string::npos) << "three, not more: " << *md;
}

TEST_F(OnAnalysis, LoopHoverLensAndProfileCandidates) {
  Snapshot s = analyse(kTmv, 1);
  Range range;
  auto md = hoverAt(s, std::string(kTmv).find("for (") + 1, range);
  ASSERT_TRUE(md);
  EXPECT_NE(md->find("Trip count: uniform"), std::string::npos) << *md;
  EXPECT_NE(md->find("`#pragma np parallel for reduction(+:sum)`"), std::string::npos) << *md;
  // The cost model: the original's estimated time, what it assumed, and
  // (the kernel is launched elsewhere, so CUDA-NP is refused and nothing
  // else applies) that nothing offered has an estimate: keep the original.
  EXPECT_NE(md->find("**Estimated time** (cost model, docs/mapping.md): original \u2248 "), std::string::npos) << *md;
  EXPECT_NE(md->find(" (estimate).\n"), std::string::npos) << *md;
  EXPECT_NE(md->find("**Keep the original**"), std::string::npos) << *md;
  EXPECT_NE(md->find("No offered rewrite has an estimate here."), std::string::npos) << *md;
  EXPECT_NE(md->find("- assumed: trip count of the loop at line 5"), std::string::npos) << *md;
  EXPECT_EQ(range.start.line, 4);
  EXPECT_FALSE(hoverAt(s, 0, range)); // a comment: nothing to say

  std::vector<CodeLens> lenses = codeLenses(s, uri_);
  ASSERT_EQ(lenses.size(), 1u);
  EXPECT_EQ(lenses[0].title, "Profile variants");
  EXPECT_EQ(lenses[0].command, "nestor.profile");
  EXPECT_EQ(lenses[0].range.start.line, 1);
  EXPECT_EQ(lenses[0].arguments[1].getAsString(), std::optional<llvm::StringRef>("tmv"));

  auto candidates = profileCandidates(s, "tmv");
  ASSERT_TRUE(bool(candidates)) << llvm::toString(candidates.takeError());
  ASSERT_FALSE(candidates->empty());
  bool hasPragma = false;
  for (const llvm::json::Value &c : *candidates)
    hasPragma |= c.getAsObject()->getString("rewrite") == std::optional<llvm::StringRef>("np-pragma");
  EXPECT_TRUE(hasPragma);
  auto missing = profileCandidates(s, "nope");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("kernels: tmv"), std::string::npos);
}

TEST_F(OnAnalysis, PragmaHoverOnTheLineUsesTheModel) {
  std::string text = kTmv;
  text.insert(text.find("  for ("), "#pragma np parallel for\n");
  Snapshot s = analyse(text, 2);
  Range range;
  auto md = hoverAt(s, text.find("#pragma np") + 9, range);
  ASSERT_TRUE(md);
  EXPECT_EQ(md->substr(0, md->find('\n')), "**#pragma np parallel for**");
  EXPECT_NE(md->find("inferred for this loop: `#pragma np parallel for reduction(+:sum)`"), std::string::npos) << *md;
}

TEST_F(OnAnalysis, AnEditBelowTheIncludesReusesThePreamble) {
  std::string text = std::string("#include <cuda_runtime.h>\n") + kTmv;
  PreambleCache cache;
  Snapshot first = analyse(text, 1, &cache);
  EXPECT_EQ(cache.builds(), 1u);
  text.insert(text.find("  c[tx] = sum;"), "  sum *= 2;\n");
  Snapshot second = analyse(text, 2, &cache);
  EXPECT_EQ(cache.builds(), 1u) << "an edit below the #include block rebuilt the preamble";
  ASSERT_TRUE(second.tu);
  EXPECT_EQ(cache.size(), 1u);
  text.insert(0, "#include <cstdio>\n"); // the include block changed: a rebuild is right
  Snapshot third = analyse(text, 3, &cache);
  EXPECT_EQ(cache.builds(), 2u);
}

TEST_F(OnAnalysis, ACancelledAnalysisStopsEvenMidParse) {
  // Long enough that the flag, set after 50 ms, lands in the parse (or
  // before it): either way the analysis must end as cancelled, not with a TU.
  std::string text;
  for (int i = 0; i < 4000; ++i) text += std::string(kTmv).replace(std::string(kTmv).find("tmv("), 3, "k" + std::to_string(i));
  std::atomic<bool> cancelled{false};
  AnalysisOptions opts;
  opts.contents = text;
  opts.cancelled = &cancelled;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancelled = true;
  });
  auto started = std::chrono::steady_clock::now();
  auto tu = analyzeFile(path_, opts);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  canceller.join();
  ASSERT_FALSE(bool(tu)) << "a TU came back from a cancelled analysis";
  EXPECT_NE(llvm::toString(tu.takeError()).find("cancelled"), std::string::npos);
  // Figure, not a bound: a full analysis of this text takes seconds.
  std::printf("     cancelled after 50 ms: analyzeFile returned after %.0f ms\n", ms);
}

const llvm::json::Object *actionOfKind(const llvm::json::Array &actions, llvm::StringRef kind, bool withData = true) {
  for (const llvm::json::Value &a : actions) {
    const llvm::json::Object *o = a.getAsObject();
    if (o->getString("kind") == std::optional<llvm::StringRef>(kind) && (!withData || o->getObject("data"))) return o;
  }
  return nullptr;
}

TEST_F(OnAnalysis, AnOlderAnalysisAnswersWhereTheEditsLeftTheTextAlone) {
  Snapshot s1 = analyse(kTmv, 1);
  std::shared_ptr<const ActionIndex> index = buildActionIndex(s1, uri_);
  ASSERT_TRUE(index);
  // Version 2 adds a line at the top: the loop moves down a line.
  std::string text2 = std::string("// an edit\n") + kTmv;
  CodeActionRequest req;
  req.uri = uri_;
  req.begin = req.end = text2.find("for (");
  req.resolveEdits = true;
  auto actions = codeActions(*index, req, DocumentNow{2, text2, nullptr});
  ASSERT_TRUE(actions) << "an edit two lines above the loop must not hold the answer back";
  const llvm::json::Object *fix = actionOfKind(*actions, "quickfix");
  ASSERT_TRUE(fix);
  EXPECT_FALSE(fix->get("edit")) << "an edit computed on version 1 must not be offered for version 2";
  EXPECT_EQ(fix->getObject("data")->getInteger("version"), 2);
  EXPECT_EQ(fix->getObject("data")->getObject("fix")->getObject("at")->getInteger("line"), 5);
  const llvm::json::Object *diag = (*fix->getArray("diagnostics"))[0].getAsObject();
  EXPECT_EQ(diag->getObject("range")->getObject("start")->getInteger("line"), 5);
  const llvm::json::Object *rewrite = actionOfKind(*actions, "refactor.rewrite");
  ASSERT_TRUE(rewrite);
  EXPECT_EQ(rewrite->getObject("data")->getObject("target")->getObject("at")->getInteger("line"), 5);

  // Resolved on the analysis of version 2: edits of version 2's text.
  Snapshot s2 = analyse(text2, 2);
  auto resolvedFix = resolveCodeAction(s2, llvm::json::Value(llvm::json::Object(*fix)), true);
  ASSERT_TRUE(bool(resolvedFix)) << llvm::toString(resolvedFix.takeError());
  const llvm::json::Object *change = (*resolvedFix->getAsObject()->getObject("edit")->getArray("documentChanges"))[0].getAsObject();
  EXPECT_EQ(change->getObject("textDocument")->getInteger("version"), 2);
  const llvm::json::Object *edit = (*change->getArray("edits"))[0].getAsObject();
  EXPECT_EQ(edit->getObject("range")->getObject("start")->getInteger("line"), 5);
  EXPECT_EQ(edit->getString("newText"), std::optional<llvm::StringRef>("  #pragma np parallel for reduction(+:sum)\n"));
  auto resolvedRewrite = resolveCodeAction(s2, llvm::json::Value(llvm::json::Object(*rewrite)), true);
  ASSERT_TRUE(bool(resolvedRewrite)) << llvm::toString(resolvedRewrite.takeError());
  EXPECT_TRUE(resolvedRewrite->getAsObject()->getObject("edit"));
  // ... and never on version 1's.
  auto onOld = resolveCodeAction(s1, llvm::json::Value(llvm::json::Object(*fix)), true);
  ASSERT_FALSE(bool(onOld));
  EXPECT_NE(llvm::toString(onOld.takeError()).find("changed"), std::string::npos);

  // A client that cannot resolve gets no stale answer: it waits.
  req.resolveEdits = false;
  EXPECT_FALSE(codeActions(*index, req, DocumentNow{2, text2, nullptr}));
  req.resolveEdits = true;
  // An edit inside the loop: only the new analysis can answer.
  std::string text3 = kTmv;
  text3.replace(text3.find("sum += "), 7, "sum -= ");
  req.begin = req.end = text3.find("for (");
  EXPECT_FALSE(codeActions(*index, req, DocumentNow{3, text3, nullptr}));
  // The cursor on the edited line: likewise.
  req.begin = req.end = text3.find("sum -= ") + 4;
  EXPECT_FALSE(codeActions(*index, req, DocumentNow{3, text3, nullptr}));
}

// The first request after a keystroke in the loop's own header: the index of
// the previous text answers with the loop's rewrites (titles, no edits) and
// resolve checks them on the current analysis.
TEST_F(OnAnalysis, AroundAnEditOfTheLoopItselfRewritesAreOfferedForResolve) {
  Snapshot s1 = analyse(kTmv, 1);
  auto index = buildActionIndex(s1, uri_);
  ASSERT_TRUE(index);
  std::string text2 = kTmv;
  text2.replace(text2.find("i < h"), 5, "i < h - 1"); // typed in the header
  CodeActionRequest req;
  req.uri = uri_;
  req.begin = req.end = text2.find("h - 1") + 5; // the cursor after the edit
  req.resolveEdits = true;
  ASSERT_FALSE(codeActions(*index, req, DocumentNow{2, text2, nullptr})) << "the edit touched the loop";
  llvm::json::Array around = codeActionsAroundEdit(*index, req, DocumentNow{2, text2, nullptr});
  const llvm::json::Object *rewrite = actionOfKind(around, "refactor.rewrite");
  ASSERT_TRUE(rewrite) << "the loop's rewrites, from the previous analysis";
  for (const llvm::json::Value &a : around) EXPECT_FALSE(a.getAsObject()->get("edit")) << "no edit of another text";
  EXPECT_EQ(rewrite->getObject("data")->getInteger("version"), 2);
  EXPECT_EQ(rewrite->getObject("data")->getObject("target")->getObject("at")->getInteger("line"), 4);
  EXPECT_FALSE(actionOfKind(around, "quickfix")) << "the loop's finding was under the edit";

  // Resolved on version 2's analysis: the loop is there, the edit is of its text.
  Snapshot s2 = analyse(text2, 2);
  auto resolved = resolveCodeAction(s2, llvm::json::Value(llvm::json::Object(*rewrite)), true);
  ASSERT_TRUE(bool(resolved)) << llvm::toString(resolved.takeError());
  EXPECT_TRUE(resolved->getAsObject()->getObject("edit"));
  // A keystroke that turned the loop into something else: resolve says so.
  std::string broken = kTmv;
  broken.replace(broken.find("for (int i = 0; i < h; i++)"), 27, "if (h > 0)");
  Snapshot s3 = analyse(broken, 2);
  auto refused = resolveCodeAction(s3, llvm::json::Value(llvm::json::Object(*rewrite)), true);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("ask for code actions again"), std::string::npos);
  // Clients that cannot resolve get nothing from an older text.
  req.resolveEdits = false;
  EXPECT_TRUE(codeActionsAroundEdit(*index, req, DocumentNow{2, text2, nullptr}).empty());
}

TEST_F(OnAnalysis, AStaleActionWhoseTargetIsGoneFailsToResolve) {
  Snapshot s1 = analyse(kTmv, 1);
  auto index = buildActionIndex(s1, uri_);
  std::string text2 = std::string("// an edit\n") + kTmv;
  CodeActionRequest req;
  req.uri = uri_;
  req.begin = req.end = text2.find("for (");
  req.resolveEdits = true;
  auto actions = codeActions(*index, req, DocumentNow{2, text2, nullptr});
  ASSERT_TRUE(actions);
  const llvm::json::Object *fix = actionOfKind(*actions, "quickfix");
  const llvm::json::Object *rewrite = actionOfKind(*actions, "refactor.rewrite");
  ASSERT_TRUE(fix && rewrite);
  // Version 2 as the server later analyses it: the loop was deleted too.
  std::string gone = text2.substr(0, text2.find("  for (")) + "  c[tx] = sum;\n}\n";
  Snapshot s2 = analyse(gone, 2);
  for (const llvm::json::Object *a : {fix, rewrite}) {
    auto r = resolveCodeAction(s2, llvm::json::Value(llvm::json::Object(*a)), true);
    ASSERT_FALSE(bool(r));
    EXPECT_NE(llvm::toString(r.takeError()).find("gone"), std::string::npos);
  }
}

} // namespace
