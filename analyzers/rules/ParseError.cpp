// parse-error: clang could not parse part of the file. Analysis goes on with
// everything that did parse, so the other findings stay useful.
#include "RuleUtil.h"

namespace nestor {
namespace {
class ParseError final : public Rule {
public:
  const char *id() const override { return "parse-error"; }
  Severity defaultSeverity() const override { return Severity::Warning; }
  const char *summary() const override {
    return "Clang could not parse part of this file: check the compile flags (-p or flags after --)";
  }
  const char *description() const override {
    return "Errors while parsing usually mean missing include paths or defines, or APIs removed from the "
           "installed CUDA toolkit (texture references, for example). Nestor still analyses every kernel "
           "that parsed; pass the project's compile_commands.json with -p for complete results.";
  }
  void check(const AnalyzedTU &tu, std::vector<Finding> &out) const override {
    for (const ParseDiagnostic &d : tu.model().parseDiagnostics) {
      // The missing device-side cudaDeviceSynchronize is dp-device-sync's finding.
      bool explained = false;
      for (const ConstructUse &sync : tu.model().deviceSyncs)
        explained |= sync.span.begin.line == d.span.begin.line && d.message.find("cudaDeviceSynchronize") != std::string::npos;
      if (explained) continue;
      SourceSpan s = d.span;
      if (!s.valid()) {
        s.file = tu.model().file;
        s.begin = {1, 1, 0};
        s.end = {1, 1, 0};
      }
      out.push_back(rules::makeFinding(*this, s, "clang: " + d.message));
    }
  }
};
} // namespace
const Rule &ParseErrorRule() {
  static const ParseError rule;
  return rule;
}
} // namespace nestor
