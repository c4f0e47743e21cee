// Racing (adaptive sampling): variants are timed in interleaved rounds and a
// variant that can no longer win stops being timed.
//
// After each round, a variant whose interquartile range lies entirely above
// the current best's, by more than the recommender's noise margin
// (q1 > best q3 * (1 + margin)), is eliminated: it keeps the samples it has
// and the reason. The baseline is never eliminated (the speedup figures need
// its full timing), nor is the current best. The same class drives the
// runner's timing loop and the replay of recorded sample streams in tests.
#pragma once
#include "nestor/profiler/results.h"
#include "nestor/profiler/stats.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nestor::profiler {

struct RaceRule {
  bool enabled = true;
  size_t min_samples = 5;   // a variant and the best both need this many before they are compared
  double margin = 0.02;     // RecommendCriterion::min_relative_gain: the recommender's noise margin
  size_t early_samples = 3; // no sample overlap at all, with early_margin to spare
  double early_margin = 0.25;
  double screen_factor = 2.0; // 0 disables screening
};

struct Elimination {
  std::string id;
  std::string reason; // "eliminated after N samples: q1 X ms > best q3 Y ms ('best')"
};

class Race {
public:
  explicit Race(RaceRule rule = {}) : rule_(rule) {}

  // A variant that has passed its correctness check and starts being timed.
  void enter(const std::string& id, bool baseline);
  void add_sample(const std::string& id, double ms);
  // The time of a variant's correctness run; returns the reason when that
  // alone eliminates it (never the baseline, never the best).
  std::optional<std::string> screen(const std::string& id, double ms);
  // A finished timing (cached, or stopped by the stopping rule): it stays a
  // contender for "best" but is no longer a candidate for elimination.
  void finish(const std::string& id);
  void enter_finished(const std::string& id, bool baseline, const std::vector<double>& samples);
  // A variant that failed (run error, output mismatch): no longer a contender.
  void withdraw(const std::string& id);

  // Checks every variant still being timed against the current best; returns
  // the ones eliminated now (each only once).
  std::vector<Elimination> eliminate();

  bool eliminated(const std::string& id) const;
  std::optional<std::string> best() const { return best_with(rule_.min_samples); } // lowest median among contenders with min_samples
  const RaceRule& rule() const { return rule_; }

private:
  struct Entry {
    bool baseline = false, timing = true, eliminated = false, withdrawn = false;
    std::vector<double> samples;
    std::optional<double> screened; // the correctness run's time
  };
  std::optional<std::string> best_with(size_t samples) const;
  RaceRule rule_;
  std::map<std::string, Entry> entries_;
};

// A recorded sample stream of one variant (what its timed runs returned, in order).
struct SampleStream {
  std::string id;
  bool baseline = false;
  std::vector<double> samples_ms;
};

// Replays streams the way the runner times them: round robin, one sample per
// variant per round, each variant stopped by `stopping` (its own samples'
// durations count as elapsed time) or by running out of recorded samples, and
// eliminations after each round when `race.enabled`. Returns one Ok result
// per stream, eliminated ones with stop_reason "eliminated" and the reason.
std::vector<VariantResult> replay_race(const std::vector<SampleStream>& streams, const StoppingRule& stopping,
                                       const RaceRule& race);

// The timing summary of samples taken so far (median, quartiles, ...).
Timing timing_from_samples(const std::vector<double>& samples, const std::string& stop_reason);

} // namespace nestor::profiler
