// np-irregular-loop: a parallel loop whose trip count differs between the
// threads of a warp (e.g. a CSR row). Lanes with short rows idle while the
// longest finishes; CTE (collaborative-task-engagement.md) or sub-warp
// decomposition share the iterations of the whole warp instead.
#include "RuleUtil.h"
#include "nestor/Offers.h"

#include "llvm/ADT/StringExtras.h"

namespace nestor {
namespace {
class NpIrregularLoop final : public Rule {
public:
  const char *id() const override { return "np-irregular-loop"; }
  Severity defaultSeverity() const override { return Severity::Warning; }
  const char *summary() const override {
    return "Loop trip count differs per thread (load imbalance in the warp): use CTE or sub-warp decomposition";
  }
  const char *description() const override {
    return "The loop's trip count depends on the thread (typically a CSR row length), so the lanes of a "
           "warp finish at different times and the warp runs as long as its longest lane. Collaborative "
           "task engagement (CTE) lets the whole warp process the iterations of all its lanes; sub-warp "
           "decomposition assigns a group of lanes to each task.";
  }
  void check(const AnalyzedTU &tu, std::vector<Finding> &out) const override {
    const FileModel &m = tu.model();
    for (const LoopSite &l : m.loops) {
      if (l.tripCount != TripCountClass::Irregular || !rules::isNpCandidate(l)) continue;
      std::string range = "'" + l.lowerBound + "' to '" + l.upperBound + "'";
      std::string how = l.reductions.empty()
                            ? "spread its iterations over the lanes of a warp with CUDA-NP (np_type=intra)"
                            : "use CTE (the " + std::string(spelling(l.reductions.front().op)) + " reduction of '" +
                                  l.reductions.front().var + "' is associative) or sub-warp decomposition";
      // Name only what the rewrite engine offers here (when it is linked).
      if (const OfferOracle *oracle = offerOracle()) {
        std::vector<std::pair<std::string, std::string>> candidates =
            l.reductions.empty()
                ? std::vector<std::pair<std::string, std::string>>{{"np", "CUDA-NP (np_type=intra)"},
                                                                    {"subwarp", "sub-warp decomposition"}}
                : std::vector<std::pair<std::string, std::string>>{
                      {"cte", "CTE (the " + std::string(spelling(l.reductions.front().op)) + " reduction of '" +
                                  l.reductions.front().var + "' is associative)"},
                      {"subwarp", "sub-warp decomposition"}};
        std::vector<std::string> offered;
        OfferAnswer firstRefusal;
        for (const auto &[id, words] : candidates) {
          OfferAnswer a = (*oracle)(tu, id, l.id);
          if (a.offered) offered.push_back(words);
          else if (firstRefusal.reason.empty()) firstRefusal = a;
        }
        // A reduction neither CTE nor sub-warp takes: CUDA-NP's own reduction.
        if (offered.empty() && !l.reductions.empty() && (*oracle)(tu, "np", l.id).offered)
          offered.push_back("CUDA-NP (np_type=intra)");
        if (offered.empty())
          how = "no rewrite applies here yet: " + firstRefusal.reason +
                (firstRefusal.where.valid() ? " (line " + std::to_string(firstRefusal.where.begin.line) + ")" : "");
        else
          how = "use " + llvm::join(offered, " or ");
      }
      Finding f = rules::makeFinding(*this, l.headerSpan,
                                     "loop over '" + l.inductionVar + "' runs from " + range +
                                         ", a different count per thread, so warp lanes idle: " + how);
      f.data["loop"] = std::to_string(l.id);
      f.data["function"] = l.function;
      out.push_back(std::move(f));
    }
  }
};
} // namespace
const Rule &NpIrregularLoopRule() {
  static const NpIrregularLoop rule;
  return rule;
}
} // namespace nestor
