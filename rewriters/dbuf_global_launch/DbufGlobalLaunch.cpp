// dbuf-global-launch: the dbuf-global template (irregular-loop-and-recursion-
// templates.md II-B, Figure 1(c)) on a device-side launch whose child grid
// covers an irregular loop's iterations (the thesis shape child<<<deg/B+1, B>>>):
// launches below lb_threshold threads run in the parent thread, larger ones are
// delayed to a global buffer that a block-mapped pass drains after the parent
// grid. The device launch is gone: the program builds without -rdc / cudadevrt.
// Checks and edits: rewriters/lb_common/LaunchTemplates.cpp.
#include "../lb_common/LaunchTemplates.h"

namespace nestor {
namespace {
class DbufGlobalLaunchImpl final : public lb::LaunchTemplateRewrite {
public:
  const char *id() const override { return "dbuf-global-launch"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"global-buffer", "lb_threshold"}}};
    return i;
  }
  const char *summary() const override {
    return "dbuf-global on a device launch: small child grids run in the parent thread, large ones in a block-mapped pass after the parent; removes dynamic parallelism (no -rdc)";
  }
  std::string title(const RewriteParams &p) const override {
    return "Remove the device launch (no -rdc/cudadevrt needed): dbuf-global, lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
  const char *templateName() const override { return "dbuf-global"; }
  bool holdsInBlock() const override { return false; }
  std::string launchComment(const lb::LaunchTemplateCode &c) const override {
    return ", no dynamic parallelism: a launch of\n" + c.indent + "// fewer than " + c.threshold +
           " threads runs in this thread; a larger one is delayed to " + c.child + "_nestor_drain,\n" + c.indent +
           "// which runs after this grid (CDP2 gives no earlier guarantee either).\n";
  }
};
} // namespace

const Rewrite &DbufGlobalLaunchRewrite() {
  static const DbufGlobalLaunchImpl r;
  return r;
}
} // namespace nestor
