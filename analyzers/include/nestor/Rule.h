// The rule interface: one rule per file under analyzers/rules/, each with
// docs/rules/<id>.md and positive and negative fixtures in tests/fixtures/.
#pragma once
#include "nestor/Finding.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nestor {

class AnalyzedTU;

class Rule {
public:
  virtual ~Rule() = default;
  virtual const char *id() const = 0;
  virtual Severity defaultSeverity() const = 0;
  /// One line, naming the fix (SARIF shortDescription).
  virtual const char *summary() const = 0;
  /// A paragraph (SARIF fullDescription).
  virtual const char *description() const = 0;
  /// Appends findings (with the rule's default severity; the engine applies
  /// configuration afterwards).
  virtual void check(const AnalyzedTU &tu, std::vector<Finding> &out) const = 0;
};

/// All rules, in a stable order (by id).
const std::vector<const Rule *> &allRules();
const Rule *findRule(const std::string &id);

/// Documentation URL of a rule (codeDescription.href, SARIF helpUri).
std::string ruleDocUrl(const std::string &id);

/// Each rules/<Name>.cpp defines one of these; RuleRegistry.cpp lists them.
#define NESTOR_RULE(Name) const Rule &Name##Rule();
#include "nestor/Rules.def"
#undef NESTOR_RULE

} // namespace nestor
