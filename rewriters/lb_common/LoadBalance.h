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

enum class Template { DualQueue, DbufShared, DbufGlobal, DparOpt };

struct LbPlan {
  bool ok = false;
  std::string reason;
  SourceSpan blocker;
  clang::tooling::Replacements edits;
};

/// Checks the target and, with `emit`, builds the edits. `threshold` is the
/// paper's lb_THRES: iterations with a trip count at or above it are large.
LbPlan planLoadBalance(const AnalyzedTU &tu, const RewriteTarget &t, Template which, long long threshold, bool emit);

/// The `lb_threshold` parameter (32/64/128/256, default 64) and its variants.
std::vector<ParamSpec> thresholdParams();
std::vector<RewriteParams> thresholdVariants();
long long thresholdOf(const RewriteParams &p);

/// Offset of the start of the line where a function's declaration starts (its
/// `__global__`, also when that is a macro or on the line before): where code
/// that must precede the function is inserted.
unsigned declStart(const AnalyzedTU &tu, const clang::FunctionDecl *fd);

/// The Rewrite side the three templates share: loop target, lb_threshold,
/// prepare/apply through planLoadBalance.
class LoadBalanceRewrite : public Rewrite {
public:
  explicit LoadBalanceRewrite(Template w) : which_(w) {}
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Loop; }
  std::vector<ParamSpec> params() const override { return thresholdParams(); }
  std::vector<RewriteParams> variants() const override { return thresholdVariants(); }
  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &p) const override {
    LbPlan plan = planLoadBalance(tu, t, which_, thresholdOf(p), false);
    return plan.ok ? Applicability::yes() : Applicability::no(plan.reason, plan.blocker);
  }
  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &p) const override {
    LbPlan plan = planLoadBalance(tu, t, which_, thresholdOf(p), true);
    if (!plan.ok) return llvm::createStringError("%s: %s", id(), plan.reason.c_str());
    return std::move(plan.edits);
  }

private:
  Template which_;
};

} // namespace nestor::lb
