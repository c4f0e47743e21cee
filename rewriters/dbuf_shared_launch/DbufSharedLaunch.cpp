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
#include "nestor/Papers.h"
#include "../dp_common/DpCommon.h"

namespace nestor {
namespace {
class DbufSharedLaunchImpl final : public lb::LaunchTemplateRewrite {
public:
  const char *id() const override { return "dbuf-shared-launch"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"block-buffer", "lb_threshold"}}};
    return i;
  }
  const char *summary() const override {
    return "dbuf-shared on a device launch: small child grids run in the parent thread, large ones in the parent's block after "
           "its body; removes dynamic parallelism (no -rdc)";
  }
  std::string title(const RewriteParams &p) const override {
    return "Remove the device launch (no -rdc/cudadevrt needed): dbuf-shared, lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
  const char *templateName() const override { return "dbuf-shared"; }
  bool holdsInBlock() const override { return true; }
  /// The buffer adds static shared memory to every parent block; with
  /// dynamic shared memory on top, the launch could exceed the limit.
  Applicability checkTemplate(const AnalyzedTU &tu, const LaunchSite &site) const override {
    std::vector<dprw::HostLaunch> hosts;
    if (dprw::hostLaunchesOf(tu, site.parent, hosts).applies)
      for (const dprw::HostLaunch &h : hosts)
        if (!h.site->sharedMem.empty() && h.site->sharedMem != "0")
          return Applicability::no("the launch of " + site.parent + " at " + dprw::lineOf(h.site->span) +
                                       " asks for dynamic shared memory (" + h.site->sharedMem +
                                       "): dbuf-shared adds a buffer of static shared memory to each block, which could exceed "
                                       "the limit; dbuf-global-launch does not",
                                   h.site->span);
    return Applicability::yes();
  }
  std::string launchComment(const lb::LaunchTemplateCode &c) const override {
    return ", no dynamic parallelism: a launch of\n" + c.indent + "// fewer than " + c.threshold +
           " threads runs in this thread; a larger one is held, and this block runs it after\n" + c.indent +
           "// the parent body (CDP2 gives no earlier guarantee either).\n";
  }
  std::string runsDelayedLaunches(const lb::LaunchTemplateCode &) const override { return "the parent's block"; }
  std::string blockPhaseKernelBody(const lb::LaunchTemplateCode &c) const override {
    return "{\n  // dbuf-shared, lb_threshold " + c.threshold +
           " (" + papers::kTemplates + ", II-B, Figure 1(b)): the body runs launches of " + c.child +
           "\n  // below " + c.threshold + " threads in their thread and holds larger ones; "
           "then the whole block runs the held launches,\n  // one after another, its threads striding over each launch's "
           "child threads (a buffer in shared\n  // memory, an overflow on the device heap). No dynamic parallelism is left.\n  " +
           c.heldType + " nestor_held;\n  " + c.parent + "_nestor_body(" + c.parentArgs + "nestor_held);\n"
           "  nestor::tmpl::dbuf_shared_launches(nestor_held, " + c.threadLambda + ");\n}";
  }
};
} // namespace

const Rewrite &DbufSharedLaunchRewrite() {
  static const DbufSharedLaunchImpl r;
  return r;
}
} // namespace nestor
