// dual-queue-launch: the dual-queue template (irregular-loop-and-recursion-templates.md
// II-B, Figure 1(b)) on a device-side launch whose child grid covers an
// irregular loop's iterations: every launch is queued as small or large by its
// thread count (lb_threshold), and after the parent grid a thread-mapped pass
// runs the small launches and a block-mapped pass the large ones. The device
// launch is gone: the program builds without -rdc / cudadevrt.
// Checks and edits: rewriters/lb_common/LaunchTemplates.cpp.
#include "../lb_common/LaunchTemplates.h"

namespace nestor {
namespace {
class DualQueueLaunchImpl final : public lb::LaunchTemplateRewrite {
public:
  const char *id() const override { return "dual-queue-launch"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"two-queues", "lb_threshold"}}};
    return i;
  }
  const char *summary() const override {
    return "dual-queue on a device launch: small child grids in a thread-mapped pass, large ones in a block-mapped pass after the parent; removes dynamic parallelism (no -rdc)";
  }
  std::string title(const RewriteParams &p) const override {
    return "Remove the device launch (no -rdc/cudadevrt needed): dual-queue, lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
  const char *templateName() const override { return "dual-queue"; }
  bool holdsInBlock() const override { return false; }
  bool queuesSmallLaunches() const override { return true; }
  std::string launchComment(const lb::LaunchTemplateCode &c) const override {
    return ", no dynamic parallelism: the launch is\n" + c.indent + "// queued as small (fewer than " + c.threshold +
           " threads, thread-mapped pass) or large (block-mapped pass);\n" + c.indent +
           "// the passes run after this grid (CDP2 gives no earlier guarantee either).\n";
  }
};
} // namespace

const Rewrite &DualQueueLaunchRewrite() {
  static const DualQueueLaunchImpl r;
  return r;
}
} // namespace nestor
