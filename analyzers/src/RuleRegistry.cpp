#include "nestor/Rule.h"

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
  // Installed docs win; the source tree's docs serve a build tree.
  std::string dir = NESTOR_DOCS_DIR;
  if (auto env = llvm::sys::Process::GetEnv("NESTOR_DOCS_DIR")) dir = *env;
  return "file://" + dir + "/rules/" + id + ".md";
}

} // namespace nestor
