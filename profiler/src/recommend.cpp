#include "nestor/profiler/recommend.h"

#include <cstdio>

namespace nestor::profiler {

static std::string format_ms(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g ms", value);
  return buffer;
}

Recommendation recommend(const std::vector<VariantResult>& variants, const RecommendCriterion& criterion) {
  Recommendation rec;
  char text[256];
  std::snprintf(text, sizeof text,
                "a correct variant is recommended only if its IQR lies entirely below the baseline's "
                "(variant q3 < baseline q1) and its median is at least %.0f%% lower; the fastest such variant by median wins",
                criterion.min_relative_gain * 100);
  rec.criterion = text;

  const VariantResult* baseline = nullptr;
  for (auto& v : variants)
    if (v.baseline) baseline = &v;
  if (!baseline) {
    rec.reason = "the results have no baseline variant";
    return rec;
  }
  if (baseline->status != VariantStatus::Ok || !baseline->timing) {
    rec.reason = "the baseline did not run correctly (" + std::string(to_string(baseline->status)) +
                 "), so no variant could be checked against it";
    return rec;
  }
  const Timing& base = *baseline->timing;

  const VariantResult* fastest = nullptr;
  for (auto& v : variants) {
    if (v.baseline || v.status != VariantStatus::Ok || !v.timing) continue;
    if (!fastest || v.timing->median < fastest->timing->median) fastest = &v;
  }
  if (!fastest) {
    rec.reason = "no variant other than the baseline ran correctly";
    return rec;
  }
  const Timing& best = *fastest->timing;
  double speedup = best.median > 0 ? base.median / best.median : 0;
  bool separated = best.q3 < base.q1;
  bool large_enough = best.median <= base.median * (1 - criterion.min_relative_gain);
  if (separated && large_enough) {
    rec.decision = "variant";
    rec.variant = fastest->id;
    rec.speedup = speedup;
    std::snprintf(text, sizeof text, "'%s' is the fastest correct variant: median %s vs baseline %s (%.2fx), IQRs do not overlap",
                  fastest->id.c_str(), format_ms(best.median).c_str(), format_ms(base.median).c_str(), speedup);
    rec.reason = text;
    // Candidates the measurement cannot tell apart from the winner: the
    // choice between them may flip from run to run.
    std::string ties;
    for (auto& v : variants)
      if (&v != fastest && !v.baseline && v.status == VariantStatus::Ok && v.timing && v.timing->q1 <= best.q3 &&
          v.timing->q3 < base.q1)
        ties += (ties.empty() ? "" : ", ") + ("'" + v.id + "'");
    if (!ties.empty()) rec.reason += "; within its noise (IQRs overlap): " + ties;
  } else {
    std::snprintf(text, sizeof text,
                  "the fastest correct variant '%s' (median %s vs baseline %s, %.2fx) is not faster beyond the noise%s",
                  fastest->id.c_str(), format_ms(best.median).c_str(), format_ms(base.median).c_str(), speedup,
                  best.median >= base.median ? " (it is slower than the baseline)"
                  : separated                ? " (gain below the minimum)"
                                             : " (IQRs overlap)");
    rec.reason = text;
  }
  return rec;
}

} // namespace nestor::profiler
