// np-pragma-unsafe: a `#pragma np parallel for` whose loop cannot be split
// over slave threads without changing results: a loop-carried dependence the
// clauses do not cover, a barrier, break/return/goto, warp intrinsics, or a
// reduction clause that does not match the loop.
#include "RuleUtil.h"

#include <set>

namespace nestor {
namespace {
class NpPragmaUnsafe final : public Rule {
public:
  const char *id() const override { return "np-pragma-unsafe"; }
  Severity defaultSeverity() const override { return Severity::Error; }
  const char *summary() const override {
    return "#pragma np parallel for on a loop that is not parallel: remove the pragma or fix the clauses";
  }
  const char *description() const override {
    return "CUDA-NP distributes the iterations of the marked loop over slave threads. That is only correct "
           "when iterations are independent apart from the variables named in reduction and scan clauses, "
           "and when no iteration synchronises with other threads or leaves the loop early.";
  }
  void check(const AnalyzedTU &tu, std::vector<Finding> &out) const override {
    const FileModel &m = tu.model();
    for (const NpPragma &p : m.pragmas) {
      if (!p.valid() || p.loopId < 0) continue;
      const LoopSite &l = m.loops[size_t(p.loopId)];
      if (l.kind != "for" || !l.inKernel) continue; // np-pragma-misplaced reports those
      auto report = [&](const SourceSpan &at, std::string msg) {
        Finding f = rules::makeFinding(*this, p.span, std::move(msg));
        if (at.valid()) f.related.push_back({"here", at});
        f.data["loop"] = std::to_string(l.id);
        out.push_back(std::move(f));
      };
      if (l.inductionVar.empty()) {
        report(l.headerSpan, "the loop after '#pragma np parallel for' is not a canonical counted loop "
                             "(init; i < bound; i += step), so its iterations cannot be distributed");
        continue;
      }
      std::map<std::string, ReductionOp> declared;
      for (const auto *list : {&p.reductions, &p.scans})
        for (const VarOpClause &c : *list)
          for (const std::string &v : c.vars) declared[v] = c.op;
      for (const LoopCarriedDependence &d : l.carriedDependences)
        if (!declared.count(d.var))
          report(d.span, "loop-carried dependence not covered by the pragma: " + d.reason);
      auto checkRed = [&](const std::vector<Reduction> &rs, const char *clause) {
        for (const Reduction &r : rs) {
          auto it = declared.find(r.var);
          if (it == declared.end())
            report(r.span, "'" + r.var + "' is a " + spelling(r.op) + " " + clause + " the pragma does not declare: add " +
                               clause + "(" + spelling(r.op) + ":" + r.var + ")");
          else if (it->second != r.op)
            report(r.span, "'" + r.var + "' is combined with " + spelling(r.op) + " in the loop but the pragma says " +
                               spelling(it->second));
        }
      };
      checkRed(l.reductions, "reduction");
      checkRed(l.scans, "scan");
      std::set<std::string> actual;
      for (const auto &r : l.reductions) actual.insert(r.var);
      for (const auto &r : l.scans) actual.insert(r.var);
      for (const auto &d : l.carriedDependences) actual.insert(d.var);
      for (const auto &[v, op] : declared)
        if (!actual.count(v))
          report(p.span, "'" + v + "' is named in a reduction/scan clause but the loop does not combine it with " +
                             spelling(op));
      for (const SourceSpan &b : l.barriers)
        report(b, "the loop body synchronises threads (barrier at line " + std::to_string(b.begin.line) +
                      "); slave threads would reach it a different number of times");
      for (const SourceSpan &b : l.breaks)
        report(b, "'break' at line " + std::to_string(b.begin.line) + " ends the loop early; iterations cannot be distributed");
      for (const SourceSpan &r : l.returns)
        report(r, "'return' at line " + std::to_string(r.begin.line) + " leaves the kernel from inside the loop");
      for (const SourceSpan &g : l.gotos)
        report(g, "'goto' at line " + std::to_string(g.begin.line) + " jumps out of the loop");
      if (l.hasWarpIntrinsics)
        report(l.bodySpan, "the loop body uses warp-level intrinsics, whose lanes change when slaves are added");
      if (l.hasDeviceLaunch)
        report(l.bodySpan, "the loop body launches a kernel; distributing it would change how many launches happen");
    }
  }
};
} // namespace
const Rule &NpPragmaUnsafeRule() {
  static const NpPragmaUnsafe rule;
  return rule;
}
} // namespace nestor
