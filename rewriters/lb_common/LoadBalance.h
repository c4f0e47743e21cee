// What the load-balancing templates for irregular loops share
// (irregular-loop-and-recursion-templates.md II-B, Figure 1(b), (c), (e)):
// dual-queue (dual_queue/), dbuf-shared (dbuf_shared/), dbuf-global
// (dbuf_global/) and dpar-opt (dpar_opt/). One planner checks the target and emits the edits:
//
//   - the kernel body moves into `<kernel>_nestor_body<Phase>(params...,
//     threadIdx, blockIdx, blockDim, gridDim, phase)`, where the loop becomes
//     "delay me / use the delayed result / run in place" (runtime/include/
//     nestor/templates.cuh explains the phases and the replay);
//   - the kernel body becomes one call of the runtime's template;
//   - dbuf-global and dual-queue add a defaulted `launch_state` parameter and
//     turn each launch into nestor::tmpl::launch_templates(...) (two or three
//     passes, no dynamic parallelism);
//   - dpar-opt adds `<kernel>_nestor_dpar_child`, which each block launches
//     once for its delayed rows (dynamic parallelism: -rdc).
//
// Targets: an irregular map/reduce loop (loop_common's matcher) with CSR-like
// bounds in a __global__ kernel. Refusals name the construct and its line.
#pragma once
#include "nestor/Rewrite.h"

#include <string>
#include <vector>

namespace nestor::lb {

class LoadBalanceRewrite;

struct LbPlan {
  bool ok = false;
  std::string reason;
  SourceSpan blocker;
  clang::tooling::Replacements edits;
};

/// Checks the target and, with `emit`, builds the edits with `which`'s parts.
/// `threshold` is the paper's lb_THRES: iterations with a trip count at or
/// above it are large.
LbPlan planLoadBalance(const AnalyzedTU &tu, const RewriteTarget &t, const LoadBalanceRewrite &which, long long threshold,
                       bool emit);

/// The `lb_threshold` parameter (32/64/128/256, default 64) and its variants.
std::vector<ParamSpec> thresholdParams();
std::vector<RewriteParams> thresholdVariants();
long long thresholdOf(const RewriteParams &p);

/// Offset of the start of the line where a function's declaration starts (its
/// `__global__`, also when that is a macro or on the line before): where code
/// that must precede the function is inserted.
unsigned declStart(const AnalyzedTU &tu, const clang::FunctionDecl *fd);

/// What the shared skeleton has built when a template writes its own part:
/// the texts a template's kernel body combines.
struct LoopTemplateCode {
  const AnalyzedTU &tu;
  const Kernel &kernel;
  std::string ivType;    ///< the loop variable's type
  std::string accType;   ///< the accumulator's type (`int` in the for-each form)
  std::string threshold; ///< lb_threshold, as text
  std::string op;        ///< the reduction's functor, `nestor::ops::add{}`
  std::string rowWork;   ///< a lambda: the work of one iteration for a block-mapped pass
  std::string bodyCall;  ///< a lambda calling `<kernel>_nestor_body` with an identity and a phase
  std::string params;    ///< the kernel's parameter declarations, comma-separated
  std::string args;      ///< the kernel's parameter names, comma-separated
};

/// A load-balancing template on an irregular loop. The shared skeleton
/// (checks, the body function `<kernel>_nestor_body` with the phase hook at
/// the loop, the include) lives here; a template folder (dual_queue/,
/// dbuf_shared/, ...) derives from this class, names itself and writes the
/// new kernel body and whatever it adds next to the kernel. The templates are
/// listed once, in Rewrites.def.
class LoadBalanceRewrite : public Rewrite {
public:
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Loop; }
  std::vector<ParamSpec> params() const override { return thresholdParams(); }
  std::vector<RewriteParams> variants() const override { return thresholdVariants(); }
  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &p) const override {
    LbPlan plan = planLoadBalance(tu, t, *this, thresholdOf(p), false);
    return plan.ok ? Applicability::yes() : Applicability::no(plan.reason, plan.blocker);
  }
  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    LbPlan plan = planLoadBalance(tu, t, *this, thresholdOf(p), true);
    if (!plan.ok) return llvm::createStringError("%s: %s", id(), plan.reason.c_str());
    return std::move(plan.edits);
  }

  /// The template's name in generated comments (`dual-queue`).
  virtual const char *templateName() const = 0;
  /// Whether the call site launches the passes (nestor::tmpl::launch_templates):
  /// the kernel then gets a defaulted `launch_state` parameter, every launch
  /// of it becomes the passes, and launches are checked as such. Otherwise
  /// the kernel finishes its delayed rows itself.
  virtual bool passesLaunchedByHost() const { return false; }
  /// With passesLaunchedByHost: whether a first pass queues rows as small or
  /// large (launch_templates' first argument).
  virtual bool queuesSmallRows() const { return false; }
  /// The new kernel body, `{ ... }`.
  virtual std::string kernelBody(const LoopTemplateCode &c) const = 0;
  /// Declarations that follow the body function, before the kernel.
  virtual std::string declarationsBeforeKernel(const LoopTemplateCode &) const { return ""; }
};

/// The body of a kernel whose passes the host launches: the template's
/// comment, then the dispatch on `nestor_ls` (dual-queue, dbuf-global).
std::string hostPassesKernelBody(const LoopTemplateCode &c, const std::string &comment);

} // namespace nestor::lb
