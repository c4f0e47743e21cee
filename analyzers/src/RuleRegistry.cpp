#include "nestor/Rule.h"
#include "nestor/CompileFlags.h"

#include "llvm/Support/Process.h"

#include <algorithm>

namespace nestor {

const std::vector<const Rule *> &allRules() {
  static const std::vector<const Rule *> rules = [] {
    std::vector<const Rule *> r;
#define NESTOR_RULE(Name) r.push_back(&Name##Rule());
#include "nestor/Rules.def"
#undef NESTOR_RULE
    std::sort(r.begin(), r.end(), [](const Rule *a, const Rule *b) { return std::string(a->id()) < b->id(); });
    return r;
  }();
  return rules;
}

const Rule *findRule(const std::string &id) {
  for (const Rule *r : allRules())
    if (id == r->id()) return r;
  return nullptr;
}

std::string ruleDocUrl(const std::string &id) {
  // Installed docs (BIN/../share/doc/nestor) win; the source tree's docs
  // serve a build tree (docsDir()).
  return "file://" + docsDir() + "/rules/" + id + ".md";
}

} // namespace nestor
