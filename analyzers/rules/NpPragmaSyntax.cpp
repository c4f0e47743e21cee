// np-pragma-syntax: a `#pragma np` directive that does not follow the CUDA-NP
// grammar (cuda-np.md §3.6). Reported at the offending token.
#include "RuleUtil.h"

namespace nestor {
namespace {
class NpPragmaSyntax final : public Rule {
public:
  const char *id() const override { return "np-pragma-syntax"; }
  Severity defaultSeverity() const override { return Severity::Error; }
  const char *summary() const override { return "Malformed #pragma np directive: fix the clause at the marked token"; }
  const char *description() const override {
    return "CUDA-NP directives read `#pragma np parallel for` followed by clauses reduction(op:list), "
           "scan(op:list), copyin(list), num_threads(N), np_type(inter|intra) and sm_version(N), with op one "
           "of + * max min & | ^ && ||.";
  }
  void check(const AnalyzedTU &tu, std::vector<Finding> &out) const override {
    for (const NpPragma &p : tu.model().pragmas)
      for (const PragmaError &e : p.errors) out.push_back(rules::makeFinding(*this, e.span, e.message));
  }
};
} // namespace
const Rule &NpPragmaSyntaxRule() {
  static const NpPragmaSyntax rule;
  return rule;
}
} // namespace nestor
