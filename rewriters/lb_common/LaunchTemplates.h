// The load-balancing templates on a device-side launch whose child grid
// covers an irregular loop's iterations (issue 12, case (b)); used by
// rewriters/{dbuf_global,dual_queue,dbuf_shared,dpar_opt}_launch. Design in
// LaunchTemplates.cpp; runtime nestor/promote.cuh and nestor/delayed_launches.cuh.
#pragma once
#include "LoadBalance.h"
#include "nestor/Rewrite.h"

#include <string>

namespace nestor::lb {

class LaunchTemplateRewrite;

/// Whether the launch target can take the template, or why not (one line).
Applicability prepareLaunchTemplate(const AnalyzedTU &tu, const RewriteTarget &t, const LaunchTemplateRewrite &which);
/// The edits for lb_threshold `threshold`.
llvm::Expected<clang::tooling::Replacements> applyLaunchTemplate(const AnalyzedTU &tu, const RewriteTarget &t,
                                                                 const LaunchTemplateRewrite &which, long long threshold);

/// What the shared skeleton has built when a template writes its own part.
struct LaunchTemplateCode {
  std::string child, parent; ///< the kernels' names
  std::string threshold;     ///< lb_threshold, as text
  std::string indent;        ///< the indentation inside the launch's replacement
  std::string record;        ///< `<child>_nestor_launch`: a delayed launch's arguments and configuration
  std::string threadLambda;  ///< a lambda running one child thread of a record
  std::string heldType;      ///< `nestor::tmpl::held_launch<record>`
  std::string parentArgs;    ///< the parent's parameter names, each followed by ", "
};

/// A load-balancing template on a device-side launch. The shared skeleton
/// (checks, `<child>_nestor_thread`, the record, the launch replaced by "run
/// in this thread or delay", and either the global queue drained after the
/// parent grid or the parent body moved into `<parent>_nestor_body` followed
/// by a phase of its block) lives in LaunchTemplates.cpp; a template folder
/// (dual_queue_launch/, ...) derives from this class, states its facts and
/// writes its own code. The templates are listed once, in Rewrites.def.
class LaunchTemplateRewrite : public Rewrite {
public:
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Launch; }
  std::vector<ParamSpec> params() const override { return thresholdParams(); }
  std::vector<RewriteParams> variants() const override { return thresholdVariants(); }
  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &) const override {
    return prepareLaunchTemplate(tu, t, *this);
  }
  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    return applyLaunchTemplate(tu, t, *this, thresholdOf(p));
  }

  /// The template's name in generated comments (`dual-queue`).
  virtual const char *templateName() const = 0;
  /// Where a delayed launch goes: held by its thread and run after the
  /// parent body by the parent's block (true), or appended to a global queue
  /// that `<child>_nestor_drain` runs after the parent grid (false; the
  /// parent gets a defaulted queues parameter and its host launches become
  /// nestor::tmpl::launch_promoted).
  virtual bool holdsInBlock() const = 0;
  /// Global queue only: whether small launches go to a queue of their own
  /// (a thread-mapped pass) instead of running in the parent thread.
  virtual bool queuesSmallLaunches() const { return false; }
  /// Whether the template removes dynamic parallelism from the program.
  virtual bool removesDeviceLaunch() const { return true; }
  /// The template's own checks, after the shared ones.
  virtual Applicability checkTemplate(const AnalyzedTU &, const LaunchSite &) const { return Applicability::yes(); }
  /// The comment at the launch, after "<name>, lb_threshold N (paper section)".
  virtual std::string launchComment(const LaunchTemplateCode &c) const = 0;
  /// Who runs a delayed launch (a comment).
  virtual std::string runsDelayedLaunches(const LaunchTemplateCode &c) const { return c.child + "_nestor_drain"; }
  /// Declarations that follow the record (after the child).
  virtual std::string declarationsAfterChild(const LaunchTemplateCode &) const { return ""; }
  /// Held in block: what the block does with the held launches ("runs", "launches").
  virtual const char *blockPhaseVerb() const { return "runs"; }
  /// Held in block: the parent kernel's new body, `{ ... }`, which calls
  /// `<parent>_nestor_body` and then the block phase.
  virtual std::string blockPhaseKernelBody(const LaunchTemplateCode &) const { return ""; }
};

} // namespace nestor::lb
