// dp-launch-per-thread: a device-side launch that every parent thread may
// execute. Each launch costs microseconds (issue 3 measured 59 ms for one
// launch per vertex against 0.14 ms flat), so small children should run
// serially (threshold) or be batched (aggregate).
#include "RuleUtil.h"

namespace nestor {
namespace {
class DpLaunchPerThread final : public Rule {
public:
  const char *id() const override { return "dp-launch-per-thread"; }
  Severity defaultSeverity() const override { return Severity::Warning; }
  const char *summary() const override {
    return "Every parent thread launches a child grid: threshold small launches or aggregate them";
  }
  const char *description() const override {
    return "A device-side kernel launch that each thread of the parent may execute creates one grid per "
           "thread. Device launches cost microseconds each and small child grids leave the GPU idle. "
           "Serialise launches below a thread-count threshold (thesis §3.1), coarsen the child (§3.2) or "
           "aggregate the launches of a warp, block or grid into one (§2.4).";
  }
  void check(const AnalyzedTU &tu, std::vector<Finding> &out) const override {
    const FileModel &m = tu.model();
    for (const LaunchSite &l : m.launches) {
      if (!l.deviceSide || !l.everyThreadMayLaunch) continue;
      std::string threads = l.threads ? " (" + *l.threads + " threads each)" : "";
      std::string fix = l.serializable
                            ? "threshold it (run children under NESTOR_THRESHOLD threads serially) or aggregate launches per block"
                            : "aggregate launches per warp or block (not serialisable: " + l.reasons.front() + ")";
      Finding f = rules::makeFinding(*this, l.span,
                                     "every thread of '" + l.parent + "' may launch '" + l.child + "'" + threads +
                                         ": " + fix);
      if (const Kernel *child = m.findKernel(l.child))
        f.related.push_back({"child kernel '" + l.child + "'", child->nameSpan});
      f.data["launch"] = std::to_string(l.id);
      f.data["parent"] = l.parent;
      f.data["child"] = l.child;
      f.data["serializable"] = l.serializable ? "true" : "false";
      if (l.threads) f.data["threads"] = *l.threads;
      out.push_back(std::move(f));
    }
  }
};
} // namespace
const Rule &DpLaunchPerThreadRule() {
  static const DpLaunchPerThread rule;
  return rule;
}
} // namespace nestor
