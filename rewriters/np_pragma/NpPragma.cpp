// np-pragma: insert the inferred `#pragma np parallel for ...` above a loop
// (issue 4: "a separate code action that users can keep without applying the
// transformation"). The pragma itself changes nothing in nvcc's output.
#include "nestor/Rewrite.h"
#include "nestor/EditSet.h"
#include "nestor/Inference.h"

namespace nestor {
namespace {
class InsertNpPragma final : public Rewrite {
public:
  const char *id() const override { return "np-pragma"; }
  /// An annotation: the generated code is the original's.
  const RewriteInfo &info() const override {
    static const RewriteInfo i{/*annotationOnly=*/true, {}, {}};
    return i;
  }
  RewriteTarget::Kind targetKind() const override { return RewriteTarget::Kind::Loop; }
  const char *summary() const override { return "Insert the inferred #pragma np parallel for above a loop"; }
  std::string title(const RewriteParams &) const override { return "Insert #pragma np parallel for"; }

  Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &) const override {
    const FileModel &m = tu.model();
    if (t.kind != RewriteTarget::Kind::Loop || t.id < 0 || size_t(t.id) >= m.loops.size())
      return Applicability::no("no loop at this position");
    const LoopSite &l = m.loops[size_t(t.id)];
    if (l.pragma >= 0) return Applicability::no("the loop already has a #pragma np directive", m.pragmas[size_t(l.pragma)].span);
    if (!l.inKernel) return Applicability::no("the loop is not inside a __global__ kernel", l.headerSpan);
    if (l.kind != "for" || l.inductionVar.empty())
      return Applicability::no("the loop is not a canonical counted for loop", l.headerSpan);
    // A pragma no rewrite would act on is advice the engine does not stand
    // behind: CUDA-NP refuses a stride loop even under a pragma, and the
    // other loop rewrites take unit-step loops only.
    if (l.gridStride)
      return Applicability::no(strideLoopReason("the loop") + ", and no rewrite distributes them further",
                               l.headerSpan);
    if (auto why = l.concurrencyRefusal()) return Applicability::no(why->reason, why->span);
    if (l.hasDeviceLaunch) return Applicability::no("the loop body launches a kernel", l.bodySpan);
    return Applicability::yes();
  }

  llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                     const RewriteParams &) const override {
    const LoopSite &l = tu.model().loops[size_t(t.id)];
    NpPragma p = inferredPragma(l);
    SourceSpan at = lineStartSpan(l.span, tu.mainFileText());
    std::string text = indentationAt(tu.mainFileText(), l.span.begin.offset) + p.canonical() + "\n";
    EditSet reps(tu);
    reps.add(at.begin.offset, at.begin.offset, text);
    return reps.replacements();
  }
};
} // namespace
const Rewrite &NpPragmaRewrite() {
  static const InsertNpPragma r;
  return r;
}
} // namespace nestor
