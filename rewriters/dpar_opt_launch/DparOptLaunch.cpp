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
#include "../lb_common/LoadBalance.h"

namespace nestor {
namespace {
constexpr lb::LaunchTemplate kTemplate = lb::LaunchTemplate::DparOpt;

class DparOptLaunchImpl final : public Rewrite {
public:
  const char *id() const override { return "dpar-opt-launch"; }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Launch; }
  const char *summary() const override {
    return "dpar-opt on a device launch: small child grids run in the parent thread, large ones in one device launch per "
           "parent block";
  }
  std::vector<ParamSpec> params() const override { return lb::thresholdParams(); }
  std::vector<RewriteParams> variants() const override { return lb::thresholdVariants(); }
  std::string title(const RewriteParams &p) const override {
    return "One device launch per block (dpar-opt), lb_threshold " + std::to_string(lb::thresholdOf(p));
  }
  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &) const override {
    return lb::prepareLaunchTemplate(tu, t, kTemplate);
  }
  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    return lb::applyLaunchTemplate(tu, t, kTemplate, lb::thresholdOf(p));
  }
};
} // namespace

const Rewrite &DparOptLaunchRewrite() {
  static const DparOptLaunchImpl r;
  return r;
}
} // namespace nestor
