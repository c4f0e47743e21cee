// Sample statistics for variant timings and the stopping rule of the timing loop.
#pragma once
#include <cstddef>
#include <vector>

namespace nestor::profiler {

struct SampleSummary {
  size_t count = 0;
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0, mean = 0, stdev = 0;
  double iqr() const { return q3 - q1; }
  // Relative standard error of the median (1.2533 * stdev / sqrt(n) / median):
  // it shrinks as samples accumulate, so "settled" means this fell below the
  // noise target. Infinite for fewer than 2 samples or a zero median.
  double relative_median_error = 0;
};

// Quartiles use linear interpolation between order statistics (type 7).
SampleSummary summarize(std::vector<double> samples);

struct StoppingRule {
  size_t min_samples = 5;
  size_t max_samples = 100;
  double noise_target = 0.01; // relative error of the median
  double time_limit_s = 30;   // for the timed repetitions of one variant
};

enum class StopReason { KeepGoing, Settled, MaxSamples, TimeLimit };
const char* to_string(StopReason reason);

// Decides after each sample whether the timing loop of a variant can stop.
StopReason should_stop(const std::vector<double>& samples, double elapsed_s, const StoppingRule& rule);

} // namespace nestor::profiler
