// The load-balancing templates on a device-side launch whose child grid
// covers an irregular loop's iterations (issue 12, case (b)); used by
// rewriters/{dbuf_global,dual_queue,dbuf_shared,dpar_opt}_launch. Design in
// LaunchTemplates.cpp; runtime nestor/promote.cuh and nestor/delayed_launches.cuh.
#pragma once
#include "LoadBalance.h"
#include "nestor/Rewrite.h"

namespace nestor::lb {

enum class LaunchTemplate {
  DbufGlobal, ///< delayed launches in a global queue, a block-mapped pass after the parent grid
  DualQueue,  ///< small and large queues, thread- and block-mapped passes after the parent grid
  DbufShared, ///< held launches run by the parent's block after the parent body
  DparOpt,    ///< one device launch per parent block for its held launches (keeps -rdc)
};

/// Whether the template removes dynamic parallelism from the program.
inline bool removesDeviceLaunch(LaunchTemplate w) { return w != LaunchTemplate::DparOpt; }

/// Whether the launch target can take the template, or why not (one line).
Applicability prepareLaunchTemplate(const AnalyzedTU &tu, const RewriteTarget &t, LaunchTemplate which);
/// The edits for lb_threshold `threshold`.
llvm::Expected<clang::tooling::Replacements> applyLaunchTemplate(const AnalyzedTU &tu, const RewriteTarget &t,
                                                                 LaunchTemplate which, long long threshold);

/// The Rewrite side the four launch templates share: a launch target,
/// lb_threshold, prepare/apply through the functions above. Each template
/// names itself, its summary and its code action's title.
class LaunchTemplateRewrite : public Rewrite {
public:
  explicit LaunchTemplateRewrite(LaunchTemplate w) : which_(w) {}
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Launch; }
  std::vector<ParamSpec> params() const override { return thresholdParams(); }
  std::vector<RewriteParams> variants() const override { return thresholdVariants(); }
  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &) const override {
    return prepareLaunchTemplate(tu, t, which_);
  }
  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    return applyLaunchTemplate(tu, t, which_, thresholdOf(p));
  }

private:
  LaunchTemplate which_;
};

} // namespace nestor::lb
