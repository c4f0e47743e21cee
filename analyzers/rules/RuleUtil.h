// Helpers shared by the rule files.
#pragma once
#include "nestor/Analysis.h"
#include "nestor/Rule.h"
#include "nestor/Inference.h"

#include <string>

namespace nestor::rules {
using nestor::inferredPragma;
using nestor::isNpCandidate;
using nestor::indentationAt;
using nestor::lineStartSpan;


inline Finding makeFinding(const Rule &r, const SourceSpan &span, std::string message) {
  Finding f;
  f.ruleId = r.id();
  f.severity = r.defaultSeverity();
  f.span = span;
  f.message = std::move(message);
  return f;
}

} // namespace nestor::rules
