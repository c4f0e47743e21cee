#include "nestor/profiler/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace nestor::profiler {

static double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double position = q * static_cast<double>(sorted.size() - 1);
  size_t lower = static_cast<size_t>(std::floor(position));
  size_t upper = std::min(lower + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

SampleSummary summarize(std::vector<double> samples) {
  SampleSummary s;
  s.count = samples.size();
  if (samples.empty()) {
    s.relative_median_error = std::numeric_limits<double>::infinity();
    return s;
  }
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile_sorted(samples, 0.5);
  s.q1 = quantile_sorted(samples, 0.25);
  s.q3 = quantile_sorted(samples, 0.75);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  double squares = 0;
  for (double x : samples) squares += (x - s.mean) * (x - s.mean);
  s.stdev = samples.size() > 1 ? std::sqrt(squares / static_cast<double>(samples.size() - 1)) : 0;
  if (samples.size() < 2 || s.median <= 0)
    s.relative_median_error = std::numeric_limits<double>::infinity();
  else
    s.relative_median_error = 1.2533 * s.stdev / std::sqrt(static_cast<double>(samples.size())) / s.median;
  return s;
}

const char* to_string(StopReason reason) {
  switch (reason) {
  case StopReason::KeepGoing: return "running";
  case StopReason::Settled: return "settled";
  case StopReason::MaxSamples: return "max_samples";
  case StopReason::TimeLimit: return "time_limit";
  }
  return "unknown";
}

StopReason should_stop(const std::vector<double>& samples, double elapsed_s, const StoppingRule& rule) {
  if (samples.size() >= rule.max_samples) return StopReason::MaxSamples;
  // The time limit wins over the minimum count so that a slow variant cannot
  // hold a GPU worker indefinitely; at least one sample is always taken.
  if (!samples.empty() && elapsed_s >= rule.time_limit_s) return StopReason::TimeLimit;
  if (samples.size() >= rule.min_samples && summarize(samples).relative_median_error <= rule.noise_target)
    return StopReason::Settled;
  return StopReason::KeepGoing;
}

} // namespace nestor::profiler
