// dbuf-shared-launch: the dbuf-shared template (irregular-loop-and-recursion-
// templates.md II-B, Figure 1(b)) on a device-side launch whose child grid
// covers an irregular loop's iterations (the thesis shape child<<<deg/B+1, B>>>):
// launches below lb_threshold threads run in the parent thread; a larger one
// is held, and after the parent body the parent's whole block runs its held
// launches (records in shared memory, overflow on the device heap). One
// kernel, and no device launch is left: the program builds without -rdc.
// Checks and edits: rewriters/lb_common/LaunchTemplates.cpp; runtime
// nestor/delayed_launches.cuh.
#include "../lb_common/LaunchTemplates.h"

namespace nestor {
namespace {
class DbufSharedLaunchImpl final : public lb::LaunchTemplateRewrite {
public:
  DbufSharedLaunchImpl() : LaunchTemplateRewrite(lb::LaunchTemplate::DbufShared) {}
  const char *id() const override { return "dbuf-shared-launch"; }
  const char *summary() const override {
    return "dbuf-shared on a device launch: small child grids run in the parent thread, large ones in the parent's block after "
           "its body; removes dynamic parallelism (no -rdc)";
  }
  std::string title(const RewriteParams &p) const override {
    return "Remove the device launch (no -rdc/cudadevrt needed): dbuf-shared, lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
};
} // namespace

const Rewrite &DbufSharedLaunchRewrite() {
  static const DbufSharedLaunchImpl r;
  return r;
}
} // namespace nestor
