// dp-launch-in-loop: a device-side launch inside a loop of the parent makes
// one grid per iteration per thread; the launches are better hoisted into one
// child grid that covers every iteration.
#include "RuleUtil.h"

namespace nestor {
namespace {
class DpLaunchInLoop final : public Rule {
public:
  const char *id() const override { return "dp-launch-in-loop"; }
  Severity defaultSeverity() const override { return Severity::Warning; }
  const char *summary() const override {
    return "Device-side launch inside a loop: launch one child grid covering every iteration instead";
  }
  const char *description() const override {
    return "A child grid launched inside a loop of the parent is launched once per iteration and per "
           "parent thread, and the launches queue up behind each other. Launch a single child grid "
           "whose extra dimension covers the iterations, or aggregate the launches.";
  }
  void check(const AnalyzedTU &tu, std::vector<Finding> &out) const override {
    const FileModel &m = tu.model();
    for (const LaunchSite &l : m.launches) {
      if (!l.deviceSide || l.enclosingLoops.empty()) continue;
      const LoopSite &loop = m.loops[size_t(l.enclosingLoops.back())];
      Finding f = rules::makeFinding(
          *this, l.span,
          "'" + l.child + "' is launched on every iteration of the loop at line " + std::to_string(loop.span.begin.line) +
              ": launch one child grid that covers the iterations, or aggregate the launches");
      f.related.push_back({"enclosing loop", loop.headerSpan});
      f.data["launch"] = std::to_string(l.id);
      out.push_back(std::move(f));
    }
  }
};
} // namespace
const Rule &DpLaunchInLoopRule() {
  static const DpLaunchInLoop rule;
  return rule;
}
} // namespace nestor
