// dpar-opt-launch: the dpar-opt template (irregular-loop-and-recursion-
// templates.md II-B, Figure 1(e)) on a device-side launch whose child grid
// covers an irregular loop's iterations: launches below lb_threshold threads
// run in the parent thread; a larger one is held, and after the parent body
// thread 0 of each parent block makes ONE device launch for the block's held
// launches (one child block per launch). Dynamic parallelism stays (-rdc),
// but with one launch per parent block instead of one per parent thread.
// Checks and edits: rewriters/lb_common/LaunchTemplates.cpp; runtime
// nestor/delayed_launches.cuh.
#include "../lb_common/LaunchTemplates.h"

namespace nestor {
namespace {
class DparOptLaunchImpl final : public lb::LaunchTemplateRewrite {
public:
  DparOptLaunchImpl() : LaunchTemplateRewrite(lb::LaunchTemplate::DparOpt) {}
  const char *id() const override { return "dpar-opt-launch"; }
  const char *summary() const override {
    return "dpar-opt on a device launch: small child grids run in the parent thread, large ones in one device launch per "
           "parent block";
  }
  std::string title(const RewriteParams &p) const override {
    return "One device launch per block (dpar-opt), lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
};
} // namespace

const Rewrite &DparOptLaunchRewrite() {
  static const DparOptLaunchImpl r;
  return r;
}
} // namespace nestor
