// np-pragma-misplaced: `#pragma np parallel for` must directly precede a `for`
// loop in __global__ or __device__ code.
#include "RuleUtil.h"

namespace nestor {
namespace {
class NpPragmaMisplaced final : public Rule {
public:
  const char *id() const override { return "np-pragma-misplaced"; }
  Severity defaultSeverity() const override { return Severity::Warning; }
  const char *summary() const override {
    return "#pragma np is not directly followed by a for loop in device code: move it onto the loop";
  }
  const char *description() const override {
    return "A CUDA-NP directive applies to the for loop that immediately follows it inside a __global__ "
           "function. Anywhere else it is ignored.";
  }
  void check(const AnalyzedTU &tu, std::vector<Finding> &out) const override {
    const FileModel &m = tu.model();
    for (const NpPragma &p : m.pragmas) {
      if (!p.valid()) continue;
      if (p.loopId < 0) {
        out.push_back(rules::makeFinding(*this, p.span,
                                         "'#pragma np' is not directly followed by a for loop in device code; it is ignored"));
        continue;
      }
      const LoopSite &l = m.loops[size_t(p.loopId)];
      if (l.kind != "for")
        out.push_back(rules::makeFinding(*this, p.span,
                                         "'#pragma np parallel for' precedes a " + l.kind + " loop; it applies to for loops only"));
      else if (!l.inKernel)
        out.push_back(rules::makeFinding(*this, p.span,
                                         "'#pragma np parallel for' is in __device__ function '" + l.function +
                                             "'; CUDA-NP rewrites loops of __global__ kernels only"));
    }
  }
};
} // namespace
const Rule &NpPragmaMisplacedRule() {
  static const NpPragmaMisplaced rule;
  return rule;
}
} // namespace nestor
