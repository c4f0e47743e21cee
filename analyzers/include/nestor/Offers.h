// What the rewrite engine offers at a loop, as the rules may ask it.
//
// Rules live in the analysis and never depend on the rewriters; but a
// finding that suggests a rewrite must name only what the engine really
// offers there, or carry the engine's refusal instead. The rewrite library
// registers its answer here when it is linked (rewriters/src/Rewrite.cpp);
// a program without it (the analysis' own tests) gets no oracle, and the
// rules then suggest nothing beyond what the model proves.
#pragma once

#include "nestor/Model.h"

#include <functional>
#include <string>

namespace nestor {

class AnalyzedTU;

struct OfferAnswer {
  bool offered = false;
  std::string reason; ///< why not, when not offered
  SourceSpan where;
};

/// Whether rewrite `rewriteId` (any of its variants) applies to loop `loopId`.
using OfferOracle = std::function<OfferAnswer(const AnalyzedTU &, const std::string &rewriteId, int loopId)>;

void setOfferOracle(OfferOracle oracle);
/// Null when no rewrite engine is linked.
const OfferOracle *offerOracle();

} // namespace nestor
