// The recommender: measured fastest correct variant, only when it beats the
// baseline beyond the noise.
#pragma once
#include "nestor/profiler/results.h"

namespace nestor::profiler {

struct RecommendCriterion {
  // A variant counts as faster only if its third quartile is below the
  // baseline's first quartile (non-overlapping IQRs) and its median is at
  // least this much faster (relative), so that tiny but very stable
  // differences do not trigger a rewrite.
  double min_relative_gain = 0.02;
};

Recommendation recommend(const std::vector<VariantResult>& variants, const RecommendCriterion& criterion = {});

} // namespace nestor::profiler
