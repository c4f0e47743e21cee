// RewriteInfo (nestor/Rewrite.h): what each rewrite declares about itself and
// what the planner and the mapping advisor derive from it, instead of tables
// of rewrite ids of their own (issue 25).
#include "nestor/MappingAdvisor.h"
#include "nestor/Rewrite.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

using namespace nestor;

namespace {

bool hasParam(const Rewrite &r, const std::string &param) {
  for (const ParamSpec &s : r.params())
    if (s.name == param) return true;
  return false;
}

bool allowed(const Rewrite &r, const std::string &param, const std::string &value) {
  for (const ParamSpec &s : r.params())
    if (s.name == param) return s.values.empty() || std::find(s.values.begin(), s.values.end(), value) != s.values.end();
  return false;
}

/// The families of one target kind, "a+b+c" -> rank, at a loop that is
/// irregular or not.
std::map<unsigned, std::string> familiesByRank(RewriteTarget::Kind kind, bool irregularLoop) {
  std::map<unsigned, std::string> out;
  for (const Rewrite *r : allRewrites())
    if (r->targetKind() == kind)
      for (const RewriteFamily &f : r->info().families) {
        unsigned rank = irregularLoop && f.paperRankOnIrregularLoop ? *f.paperRankOnIrregularLoop : f.paperRank;
        EXPECT_TRUE(out.emplace(rank, llvm::join(f.rewrites, "+")).second)
            << "two families share rank " << rank << ": " << out[rank] << " and " << llvm::join(f.rewrites, "+");
      }
  return out;
}

std::vector<std::string> values(const std::map<unsigned, std::string> &m) {
  std::vector<std::string> out;
  for (const auto &[rank, id] : m) out.push_back(id);
  return out;
}

std::string stepsText(const Realisation &r) {
  std::string out;
  for (const auto &[id, params] : r.steps) {
    out += (out.empty() ? "" : " + ") + id;
    for (const auto &[k, v] : params) out += " " + k + "=" + v;
  }
  return out;
}

std::set<std::string> realised(const Mapping &m, bool isLaunch) {
  std::set<std::string> out;
  for (const Realisation &r : realisationsOf(m, isLaunch)) out.insert(stepsText(r));
  return out;
}

} // namespace

TEST(RewriteInfo, FamiliesAreHeadedByTheirRewriteAndNameRewritesOfItsKind) {
  for (const Rewrite *r : allRewrites())
    for (const RewriteFamily &f : r->info().families) {
      ASSERT_FALSE(f.rewrites.empty()) << r->id();
      EXPECT_EQ(f.rewrites.front(), r->id());
      for (const std::string &id : f.rewrites) {
        const Rewrite *step = findRewrite(id);
        ASSERT_NE(step, nullptr) << r->id() << " names an unknown rewrite " << id;
        EXPECT_EQ(step->targetKind(), r->targetKind()) << r->id() << " chains " << id;
      }
    }
}

TEST(RewriteInfo, RealisedMappingsNameTheRewritesOwnParameters) {
  for (const Rewrite *r : allRewrites())
    for (const RealisedMapping &m : r->info().realises) {
      EXPECT_FALSE(m.mapping.empty()) << r->id();
      if (!m.numberParam.empty()) EXPECT_TRUE(hasParam(*r, m.numberParam)) << r->id() << ": " << m.numberParam;
      for (const auto &[k, v] : m.fixedParams) EXPECT_TRUE(allowed(*r, k, v)) << r->id() << ": " << k << "=" << v;
    }
}

// The papers' measured orders (docs/profile-planner.md): the thesis' launch
// chains (Fig. 5.1-5.3); CUDA-NP first on loops with the block's trip count,
// sub-warp and CTE first on irregular ones.
TEST(RewriteInfo, StaticOrderIsThePapers) {
  EXPECT_EQ(values(familiesByRank(RewriteTarget::Kind::Launch, false)),
            (std::vector<std::string>{"threshold+coarsen+aggregate", "threshold+aggregate", "threshold", "aggregate",
                                      "coarsen+aggregate", "threshold+coarsen", "coarsen"}));
  EXPECT_EQ(values(familiesByRank(RewriteTarget::Kind::Loop, false)), (std::vector<std::string>{"np", "subwarp", "cte"}));
  EXPECT_EQ(values(familiesByRank(RewriteTarget::Kind::Loop, true)), (std::vector<std::string>{"subwarp", "cte", "np"}));
}

TEST(RewriteInfo, AnnotationsAreTheOnlyRewritesNotTimed) {
  for (const Rewrite *r : allRewrites()) EXPECT_EQ(r->info().annotationOnly, std::string(r->id()) == "np-pragma") << r->id();
}

TEST(RewriteInfo, MappingsAreRealisedByTheRewritesThatDeclareThem) {
  Mapping lanes;
  lanes.placement = "lanes";
  lanes.slaves = 8;
  EXPECT_EQ(realised(lanes, false), (std::set<std::string>{"np np_type=intra slaves=8", "subwarp width=8"}));
  Mapping y = lanes;
  y.placement = "y";
  EXPECT_EQ(realised(y, false), (std::set<std::string>{"np np_type=inter slaves=8"}));
  Mapping spanned = y;
  spanned.span = 2; // no rewrite spreads a master over two outer iterations
  EXPECT_TRUE(realised(spanned, false).empty());
  Mapping tasks;
  tasks.placement = "warp-tasks";
  EXPECT_EQ(realised(tasks, false), (std::set<std::string>{"cte mode=auto"})); // its default mode

  Mapping buffer;
  buffer.family = "global-buffer";
  buffer.lbThreshold = 64;
  EXPECT_EQ(realised(buffer, false), (std::set<std::string>{"dbuf-global lb_threshold=64"}));
  EXPECT_EQ(realised(buffer, true), (std::set<std::string>{"dbuf-global-launch lb_threshold=64"}));
  Mapping merge;
  merge.family = "merge-path";
  EXPECT_EQ(realised(merge, false), (std::set<std::string>{"merge-path"}));
  Mapping levels;
  levels.family = "recursion-levels";
  EXPECT_EQ(realised(levels, true), (std::set<std::string>{"rec-flat"}));

  Mapping chain;
  chain.threshold = 128;
  chain.coarsen = 2;
  chain.aggregate = "grid";
  EXPECT_EQ(realised(chain, true),
            (std::set<std::string>{"threshold threshold=128 + coarsen factor=2 strategy=1 + aggregate granularity=grid"}));
  Mapping aggregateOnly;
  aggregateOnly.aggregate = "warp";
  EXPECT_EQ(realised(aggregateOnly, true), (std::set<std::string>{"aggregate granularity=warp"}));
}

// What each rewrite prefers first, where the papers name a best value.
TEST(RewriteInfo, PreferredValues) {
  FileModel none;
  RewriteTarget launch{RewriteTarget::Kind::Launch, 0};
  auto preferred = [&](const char *id, const char *param) -> std::string {
    const Rewrite *r = findRewrite(id);
    if (!r) return "<no rewrite>";
    for (const ParamSpec &s : r->params())
      if (s.name == param) return r->preferredValue(s, none, launch).value_or("<none>");
    return "<no parameter>";
  };
  EXPECT_EQ(preferred("threshold", "threshold"), "128");
  EXPECT_EQ(preferred("coarsen", "factor"), "2");
  EXPECT_EQ(preferred("aggregate", "granularity"), "grid");
  EXPECT_EQ(preferred("dbuf-global", "lb_threshold"), "64"); // its default
}
