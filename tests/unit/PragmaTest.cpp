// The CUDA-NP pragma grammar (cuda-np.md §3.6): every clause and every error,
// with the exact column of the offending token.
#include "nestor/Pragma.h"

#include <gtest/gtest.h>

using namespace nestor;

namespace {
NpPragma parse(const std::string &text, unsigned column = 9) {
  PragmaTextOrigin o;
  o.file = "k.cu";
  o.line = 7;
  o.column = column;
  o.offset = 100;
  return parseNpPragma(text, o);
}

// Column (1-based, in the file) of the first error, and its message.
std::pair<unsigned, std::string> firstError(const std::string &text) {
  NpPragma p = parse(text, 1);
  if (p.errors.empty()) return {0, ""};
  return {p.errors.front().span.begin.column, p.errors.front().message};
}
} // namespace

TEST(Pragma, BareParallelFor) {
  NpPragma p = parse("np parallel for");
  EXPECT_TRUE(p.valid());
  EXPECT_TRUE(p.isParallelFor);
  EXPECT_TRUE(p.reductions.empty());
  EXPECT_EQ(p.canonical(), "#pragma np parallel for");
}

TEST(Pragma, ShortFormNpFor) {
  NpPragma p = parse("np for reduction(+:s)");
  EXPECT_TRUE(p.valid());
  EXPECT_EQ(p.canonical(), "#pragma np parallel for reduction(+:s)");
}

TEST(Pragma, EveryReductionOperator) {
  for (const std::string &op : npOperators()) {
    NpPragma p = parse("np parallel for reduction(" + op + ":a,b)");
    ASSERT_TRUE(p.valid()) << op << ": " << (p.errors.empty() ? "" : p.errors[0].message);
    ASSERT_EQ(p.reductions.size(), 1u);
    EXPECT_EQ(spelling(p.reductions[0].op), op);
    EXPECT_EQ(p.reductions[0].vars, (std::vector<std::string>{"a", "b"}));
    NpPragma s = parse("np parallel for scan(" + op + ":x)");
    ASSERT_TRUE(s.valid()) << op;
    EXPECT_EQ(spelling(s.scans[0].op), op);
  }
}

TEST(Pragma, AllClausesTogether) {
  NpPragma p = parse("np parallel for reduction(+:s) reduction(max:m), scan(*:pr) copyin(a, b) num_threads(8) "
                     "np_type(intra) sm_version(90)");
  ASSERT_TRUE(p.valid()) << p.errors[0].message;
  EXPECT_EQ(p.reductions.size(), 2u);
  EXPECT_EQ(p.scans.size(), 1u);
  EXPECT_EQ(p.copyin, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.numThreads, 8u);
  EXPECT_EQ(p.npType, NpType::Intra);
  EXPECT_EQ(p.smVersion, 90u);
  EXPECT_EQ(p.canonical(), "#pragma np parallel for reduction(+:s) reduction(max:m) scan(*:pr) copyin(a,b) "
                           "num_threads(8) np_type(intra) sm_version(90)");
}

TEST(Pragma, InterType) {
  EXPECT_EQ(parse("np parallel for np_type(inter)").npType, NpType::Inter);
}

TEST(Pragma, SupportedSlaveCounts) {
  for (unsigned n : {2u, 4u, 8u, 16u, 32u}) EXPECT_TRUE(parse("np parallel for num_threads(" + std::to_string(n) + ")").valid());
  for (unsigned n : {1u, 3u, 7u, 64u}) EXPECT_FALSE(parse("np parallel for num_threads(" + std::to_string(n) + ")").valid()) << n;
}

TEST(Pragma, CommentsAreIgnored) {
  EXPECT_TRUE(parse("np parallel for reduction(+:s) // sum of the row").valid());
  EXPECT_TRUE(parse("np parallel for /* slaves */ num_threads(4)").valid());
}

TEST(Pragma, SpansAreExact) {
  // "np parallel for reduction(+:s)" starting at column 9, offset 100.
  NpPragma p = parse("np parallel for reduction(+:s)");
  EXPECT_EQ(p.span.begin.column, 9u);
  EXPECT_EQ(p.span.begin.offset, 100u);
  EXPECT_EQ(p.span.end.column, 9u + 30u);
  EXPECT_EQ(p.reductions[0].span.begin.column, 9u + 26u); // at '+'
}

struct ErrorCase {
  const char *text;
  unsigned column; // of the offending token, 1-based (text starts at column 1)
  const char *message;
};

class PragmaGrammarError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(PragmaGrammarError, ReportsTheBadTokenExactly) {
  const ErrorCase &c = GetParam();
  auto [column, message] = firstError(c.text);
  EXPECT_EQ(column, c.column) << c.text << " -> " << message;
  EXPECT_NE(message.find(c.message), std::string::npos) << c.text << " -> " << message;
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, PragmaGrammarError,
    ::testing::Values(
        ErrorCase{"omp parallel for", 1, "expected 'np'"},
        ErrorCase{"np parallel", 12, "expected 'for' after 'np parallel'"},
        ErrorCase{"np loop", 4, "expected 'parallel for'"},
        ErrorCase{"np parallel for private(x)", 17, "unknown clause"},
        ErrorCase{"np parallel for reduction", 26, "expected '(' after 'reduction'"},
        ErrorCase{"np parallel for reduction(-:s)", 27, "unknown reduction operator"},
        ErrorCase{"np parallel for reduction(+ s)", 29, "expected ':' after the reduction operator"},
        ErrorCase{"np parallel for reduction(+:)", 29, "expected a variable name in reduction"},
        ErrorCase{"np parallel for reduction(+:s", 30, "expected ')' to close reduction"},
        ErrorCase{"np parallel for reduction(+:s,s)", 31, "listed twice"},
        // Found by tests/fuzz/fuzz_pragma: two copyin clauses naming one variable.
        ErrorCase{"np parallel for copyin(a,b) copyin(b)", 36, "listed twice in copyin"},
        ErrorCase{"np parallel for scan(avg:s)", 22, "unknown scan operator"},
        ErrorCase{"np parallel for copyin()", 24, "expected a variable name in copyin"},
        ErrorCase{"np parallel for copyin(3)", 24, "expected a variable name in copyin"},
        ErrorCase{"np parallel for num_threads(x)", 29, "expected a positive integer in num_threads"},
        ErrorCase{"np parallel for num_threads(0)", 29, "must be positive"},
        ErrorCase{"np parallel for num_threads(6)", 29, "num_threads must be 2, 4, 8, 16 or 32"},
        ErrorCase{"np parallel for num_threads(4) num_threads(4)", 32, "duplicate num_threads"},
        ErrorCase{"np parallel for np_type(wide)", 25, "np_type must be 'inter' or 'intra'"},
        ErrorCase{"np parallel for np_type(inter) np_type(intra)", 32, "duplicate np_type"},
        ErrorCase{"np parallel for sm_version(9x)", 28, "expected a positive integer in sm_version"},
        ErrorCase{"np parallel for sm_version(90) sm_version(80)", 32, "duplicate sm_version"},
        ErrorCase{"np parallel for np_type(intra", 30, "expected ')' to close np_type"},
        ErrorCase{"np parallel for (", 17, "expected a clause"}));

TEST(Pragma, VariableInTwoClauses) {
  NpPragma p = parse("np parallel for reduction(+:s) scan(+:s)");
  ASSERT_FALSE(p.valid());
  EXPECT_NE(p.errors[0].message.find("more than one reduction/scan clause"), std::string::npos);
}

TEST(Pragma, ClauseTableCoversTheGrammar) {
  std::vector<std::string> names;
  for (const ClauseInfo &c : npClauses()) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"reduction", "scan", "copyin", "num_threads", "np_type", "sm_version"}));
}
