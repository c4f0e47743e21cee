// matchMapReduce (rewriters/loop_common/LoopCommon.h), the map/reduce
// matcher of cte, subwarp, the load-balancing templates and merge-path: what
// it folds (operator, mapped value, task descriptors) for each loop body it
// accepts, and the reason for each it refuses. The conditional update
// `if (c) acc OP= x` is folding `c ? x : 0` when 0 is OP's identity.
#include "../LoopCommon.h"

#include "nestor/Analysis.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

using namespace nestor;

namespace {

/// A kernel whose one loop has `body` (locals cnt, sum, any, bits and the
/// thread-local array arr are declared before it).
std::string kernel(const std::string &body, const std::string &before = "") {
  return before +
         "__global__ void k(const int *row, const int *adj, const int *label, const float *w, int *seen, float *out, int n) {\n"
         "  int v = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (v >= n) return;\n"
         "  int cnt = 0;\n"
         "  float sum = 0.0f;\n"
         "  bool any = false;\n"
         "  unsigned bits = 0u;\n"
         "  int arr[4] = {1, 2, 3, 4};\n"
         "  for (int e = row[v]; e < row[v + 1]; ++e)\n"
         "    " + body + "\n"
         "  out[v] = cnt + sum + any + bits + arr[v & 3];\n"
         "}\n";
}

struct Matched {
  std::optional<loops::MapReduceLoop> m;
  std::string why;
  SourceSpan where;
  std::string whereText; ///< the source text of `where`
};

Matched match(const std::string &source) {
  AnalysisOptions o;
  o.contents = source;
  auto tu = analyzeFile("map_reduce_test.cu", o);
  EXPECT_TRUE(bool(tu));
  Matched r;
  if (!tu) {
    llvm::consumeError(tu.takeError());
    return r;
  }
  const LoopSite *loop = nullptr;
  for (const LoopSite &l : (*tu)->model().loops)
    if (l.function == "k" && l.kind == "for") loop = &l;
  EXPECT_NE(loop, nullptr) << source;
  if (!loop) return r;
  r.m = loops::matchMapReduce(**tu, *loop, r.why, r.where);
  if (r.where.valid() && r.where.end.offset >= r.where.begin.offset)
    r.whereText = (*tu)->mainFileText().slice(r.where.begin.offset, r.where.end.offset).str();
  return r;
}

struct Accepted {
  const char *name;
  const char *body;
  ReductionOp op;
  const char *acc, *mapped;
  bool conditional;
  std::vector<std::pair<std::string, std::string>> descriptors;
};

void PrintTo(const Accepted &c, std::ostream *os) { *os << c.name; }

class MapReduceAccepts : public ::testing::TestWithParam<Accepted> {};

TEST_P(MapReduceAccepts, FoldsTheMappedValue) {
  const Accepted &c = GetParam();
  Matched r = match(kernel(c.body));
  ASSERT_TRUE(r.m.has_value()) << c.body << ": " << r.why;
  EXPECT_EQ(r.m->op, c.op) << c.body;
  EXPECT_EQ(r.m->acc, c.acc) << c.body;
  EXPECT_EQ(r.m->mapped, c.mapped) << c.body;
  EXPECT_EQ(r.m->conditional, c.conditional) << c.body;
  EXPECT_EQ(r.m->descriptors, c.descriptors) << c.body;
  EXPECT_TRUE(r.m->csrLike) << c.body;
  // The pieces written as they are give the same text.
  EXPECT_FALSE(r.m->mappedParts.empty()) << c.body;
  EXPECT_TRUE(r.m->mappedSpan.valid()) << c.body;
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, MapReduceAccepts,
    ::testing::Values(
        // The unconditional forms, unchanged.
        Accepted{"PlusAssign", "sum += w[e];", ReductionOp::Add, "sum", "w[e]", false, {}},
        Accepted{"LocalThenPlus", "{ float x = w[e] * 2.0f; sum = sum + x; }", ReductionOp::Add, "sum", "w[e] * 2.0f", false, {}},
        // A local of another type folds the value its declaration converts
        // (the float product was folded untruncated before).
        Accepted{"LocalConvertedThenPlus", "{ int q = w[e] * 4.0f; cnt += q; }", ReductionOp::Add, "cnt",
                 "((int)(w[e] * 4.0f))", false, {}},
        Accepted{"Max", "cnt = max(cnt, label[adj[e]]);", ReductionOp::Max, "cnt", "label[adj[e]]", false, {}},
        // `if (c) ++acc`, `acc++`, `acc += x`, in a compound or not.
        Accepted{"CondPreIncrement", "if (label[adj[e]] == label[v]) ++cnt;", ReductionOp::Add, "cnt",
                 "((label[adj[e]] == label[v]) ? (1) : (int)0)", true, {{"v", "int"}}},
        Accepted{"CondPostIncrementInBraces", "if (label[adj[e]] == 3) { cnt++; }", ReductionOp::Add, "cnt", "((label[adj[e]] == 3) ? (1) : (int)0)",
                 true, {}},
        Accepted{"CondPlusAssign", "if (w[e] > 0.5f) sum += w[e];", ReductionOp::Add, "sum", "((w[e] > 0.5f) ? (w[e]) : (float)0)", true, {}},
        Accepted{"CondPlusSpelledOut", "if (label[e]) cnt = cnt + adj[e];", ReductionOp::Add, "cnt", "((label[e]) ? (adj[e]) : (int)0)", true, {}},
        // |, ^ and || (0 is false).
        Accepted{"CondBitOr", "if (label[e] & 1) bits |= 1u << (e & 31);", ReductionOp::BitOr, "bits",
                 "((label[e] & 1) ? (1u << (e & 31)) : (unsigned int)0)", true, {}},
        Accepted{"CondBitXor", "if (label[e] == 2) bits ^= label[adj[e]];", ReductionOp::BitXor, "bits",
                 "((label[e] == 2) ? (label[adj[e]]) : (unsigned int)0)", true, {}},
        Accepted{"CondLogicalOr", "if (w[e] > 0.5f) any = any || label[e] == 1;", ReductionOp::LogicalOr, "any",
                 "((w[e] > 0.5f) ? (label[e] == 1) : (bool)0)", true, {}},
        // `T u = f(i); if (c(u)) U(u)`: u is written as (f(i)), converted
        // where f(i) has another type.
        Accepted{"LocalThenCond", "{ int u = adj[e]; if (label[u] == 3) sum += w[e]; }", ReductionOp::Add, "sum",
                 "((label[(adj[e])] == 3) ? (w[e]) : (float)0)", true, {}},
        Accepted{"LocalUsedTwice", "{ float x = w[e]; if (x > 0.5f && x < 0.9f) { sum += x; } }", ReductionOp::Add, "sum",
                 "(((w[e]) > 0.5f && (w[e]) < 0.9f) ? ((w[e])) : (float)0)", true, {}},
        Accepted{"LocalConverted", "{ int q = w[e] * 4.0f; if (q == label[v]) ++cnt; }", ReductionOp::Add, "cnt",
                 "((((int)(w[e] * 4.0f)) == label[v]) ? (1) : (int)0)", true, {{"v", "int"}}}),
    [](const ::testing::TestParamInfo<Accepted> &i) { return std::string(i.param.name); });

struct Refused {
  const char *name;
  const char *body;
  const char *why;   ///< a substring of the reason
  const char *where; ///< the text of the span the refusal names
  const char *before = "";
};

void PrintTo(const Refused &c, std::ostream *os) { *os << c.name; }

class MapReduceRefuses : public ::testing::TestWithParam<Refused> {};

TEST_P(MapReduceRefuses, SaysWhyAndWhere) {
  const Refused &c = GetParam();
  Matched r = match(kernel(c.body, c.before));
  ASSERT_FALSE(r.m.has_value()) << c.body << ": accepted as " << r.m->mapped;
  EXPECT_NE(r.why.find(c.why), std::string::npos) << c.body << ": " << r.why;
  EXPECT_EQ(r.whereText, c.where) << c.body << ": " << r.why;
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, MapReduceRefuses,
    ::testing::Values(
        Refused{"ElseBranch", "if (label[e] == 1) ++cnt; else cnt += 2;", "has an `else` branch", "cnt += 2"},
        Refused{"CondMax", "if (w[e] > 0.5f) sum = fmaxf(sum, w[e]);", "is a max reduction, whose identity is not 0",
                "if (w[e] > 0.5f) sum = fmaxf(sum, w[e])"},
        Refused{"CondMin", "if (label[e] == 1) cnt = min(cnt, adj[e]);", "is a min reduction", "if (label[e] == 1) cnt = min(cnt, adj[e])"},
        Refused{"CondMul", "if (label[e] == 1) cnt *= 2;", "is a * reduction", "if (label[e] == 1) cnt *= 2"},
        Refused{"CondBitAnd", "if (label[e] == 1) bits &= label[adj[e]];", "is a & reduction", "if (label[e] == 1) bits &= label[adj[e]]"},
        Refused{"CondSubtract", "if (label[e] == 1) cnt -= adj[e];", "subtracts (`-=`)", "cnt -= adj[e]"},
        Refused{"CondDecrement", "if (label[e] == 1) --cnt;", "subtracts (`--`)", "--cnt"},
        Refused{"CondStores", "if ((seen[e] = label[e]) == 1) ++cnt;", "the condition `(seen[e] = label[e]) == 1` has side effects",
                "(seen[e] = label[e]) == 1"},
        Refused{"ValueStores", "if (label[e] == 1) cnt += seen[e]++;", "the folded value `seen[e]++` has side effects", "seen[e]++"},
        Refused{"CondReadsAccumulator", "if (label[e] == cnt) ++cnt;", "the condition `label[e] == cnt` reads the accumulator", "label[e] == cnt"},
        Refused{"CondDeclares", "if (int k = label[e]) cnt += k;", "declares a variable", "int k = label[e]"},
        Refused{"TwoStatements", "if (label[e] == 1) { ++cnt; ++cnt; }", "(2 statements)", "{ ++cnt; ++cnt; }"},
        Refused{"NotALocal", "if (label[e] == 1) seen[e] += 1;", "does not update a local scalar accumulator", "seen[e] += 1"},
        Refused{"AccumulatorIsTheLocal", "{ int u = adj[e]; if (label[u] == 1) u += 1; }", "does not update a local scalar accumulator", "u += 1"},
        Refused{"ThreadLocalArray", "if (arr[e & 3] == 1) ++cnt;", "reads the thread-local array 'arr'", "for (int e = row[v]; e < row[v + 1]; ++e)"},
        // A reference to the local the rewrite cannot see or write as f(i).
        Refused{"LocalInDecltype", "{ int u = adj[e]; if (sizeof(decltype(u)) == 4 && label[u] == 1) ++cnt; }",
                "'u' is used in `sizeof(decltype(u)) == 4 && label[u] == 1` in a way the rewrite cannot write",
                "sizeof(decltype(u)) == 4 && label[u] == 1"},
        Refused{"LocalInMacro", "{ int u = adj[e]; if (LABEL_OF(u) == 1) ++cnt; }", "'u' is used in `LABEL_OF(u) == 1`", "LABEL_OF(u) == 1",
                "#define LABEL_OF(x) label[x]\n"},
        // The unconditional subtraction, as before.
        Refused{"Subtract", "cnt -= adj[e];", "is not an associative reduction", "cnt -= adj[e]"}),
    [](const ::testing::TestParamInfo<Refused> &i) { return std::string(i.param.name); });

} // namespace
