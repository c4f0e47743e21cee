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
#include "nestor/Papers.h"

namespace nestor {
namespace {
class DparOptLaunchImpl final : public lb::LaunchTemplateRewrite {
public:
  const char *id() const override { return "dpar-opt-launch"; }
  const RewriteInfo &info() const override {
    static const RewriteInfo i{false, {}, {{"block-launch", "lb_threshold"}}};
    return i;
  }
  const char *summary() const override {
    return "dpar-opt on a device launch: small child grids run in the parent thread, large ones in one device launch per "
           "parent block";
  }
  std::string title(const RewriteParams &p) const override {
    return "One device launch per block (dpar-opt), lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
  const char *templateName() const override { return "dpar-opt"; }
  bool holdsInBlock() const override { return true; }
  bool removesDeviceLaunch() const override { return false; }
  std::string launchComment(const lb::LaunchTemplateCode &c) const override {
    return ": a launch of fewer than " + c.threshold + " threads\n" + c.indent +
           "// runs in this thread; a larger one is held, and this block makes one device launch for all of them\n" + c.indent +
           "// after the parent body.\n";
  }
  std::string runsDelayedLaunches(const lb::LaunchTemplateCode &c) const override { return childKernel(c); }
  /// `<child>_nestor_dpar`: the one device launch per parent block.
  std::string declarationsAfterChild(const lb::LaunchTemplateCode &c) const override {
    return "\n\n// The child of dpar-opt (" + papers::kTemplates + ", II-B, Figure 1(e)): one launch per\n"
           "// parent block; block k runs the block's delayed launch k, its threads striding over the child threads.\n"
           "__global__ void " + childKernel(c) + "(nestor::tmpl::launch_batch<" + c.record + "> nestor_batch) {\n"
           "  nestor::tmpl::run_launch_batch(nestor_batch, " + c.threadLambda + ");\n}";
  }
  const char *blockPhaseVerb() const override { return "launches"; }
  std::string blockPhaseKernelBody(const lb::LaunchTemplateCode &c) const override {
    return "{\n  // dpar-opt, lb_threshold " + c.threshold +
           " (" + papers::kTemplates + ", II-B, Figure 1(e)): the body runs launches of " + c.child +
           "\n  // below " + c.threshold + " threads in their thread and holds larger ones; "
           "then thread 0 makes one device launch of\n  // " + childKernel(c) + " for all of them (CDP2: the parent never "
           "waits; the child grid completes before\n  // the parent grid, as the original children did). Without -rdc the "
           "block runs them itself.\n  " +
           c.heldType + " nestor_held;\n  " + c.parent + "_nestor_body(" + c.parentArgs + "nestor_held);\n"
           "  nestor::tmpl::dpar_opt_launches(nestor_held, " + c.threadLambda + ",\n"
           "  [](const nestor::tmpl::launch_batch<" + c.record + "> &nestor_batch) {\n"
           "#if defined(__CUDACC_RDC__) // without -rdc the block runs the held launches itself\n"
           "    " + childKernel(c) + "<<<nestor_batch.count, nestor::tmpl::kBatchThreads>>>(nestor_batch);\n#endif\n  });\n}";
  }

private:
  static std::string childKernel(const lb::LaunchTemplateCode &c) { return c.child + "_nestor_dpar"; }
};
} // namespace

const Rewrite &DparOptLaunchRewrite() {
  static const DparOptLaunchImpl r;
  return r;
}
} // namespace nestor
