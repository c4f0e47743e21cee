#include "nestor/profiler/race.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace nestor::profiler {

void Race::enter(const std::string& id, bool baseline) {
  Entry& e = entries_[id];
  e = Entry{};
  e.baseline = baseline;
}

void Race::add_sample(const std::string& id, double ms) {
  auto it = entries_.find(id);
  if (it == entries_.end()) throw std::logic_error("race: sample for unknown variant '" + id + "'");
  it->second.samples.push_back(ms);
}

std::optional<std::string> Race::screen(const std::string& id, double ms) {
  auto it = entries_.find(id);
  if (it == entries_.end()) throw std::logic_error("race: screening of unknown variant '" + id + "'");
  Entry& self = it->second;
  self.screened = ms;
  if (!rule_.enabled || rule_.screen_factor <= 0 || self.baseline) return std::nullopt;
  // The best so far by everything observed (samples and correctness runs);
  // its slowest observation is the bar, so one lucky run cannot set it.
  const Entry* best = nullptr;
  std::string best_id;
  double best_median = 0, best_slowest = 0;
  for (auto& [other_id, e] : entries_) {
    if (other_id == id || e.withdrawn || e.eliminated) continue;
    std::vector<double> seen = e.samples;
    if (e.screened) seen.push_back(*e.screened);
    if (seen.empty()) continue;
    double median = summarize(seen).median;
    if (!best || median < best_median) {
      best = &e;
      best_id = other_id;
      best_median = median;
      best_slowest = *std::max_element(seen.begin(), seen.end());
    }
  }
  if (!best || !(ms > best_slowest * rule_.screen_factor)) return std::nullopt;
  self.eliminated = true;
  self.timing = false;
  self.samples = {ms};
  char reason[300];
  std::snprintf(reason, sizeof reason,
                "eliminated after 1 sample (its correctness run): %.4g ms > %.3gx the slowest run of best %.4g ms ('%s')", ms,
                rule_.screen_factor, best_slowest, best_id.c_str());
  return std::string(reason);
}

void Race::finish(const std::string& id) {
  if (auto it = entries_.find(id); it != entries_.end()) it->second.timing = false;
}

void Race::enter_finished(const std::string& id, bool baseline, const std::vector<double>& samples) {
  Entry& e = entries_[id];
  e = Entry{};
  e.baseline = baseline;
  e.timing = false;
  e.samples = samples;
}

void Race::withdraw(const std::string& id) {
  if (auto it = entries_.find(id); it != entries_.end()) {
    it->second.withdrawn = true;
    it->second.timing = false;
  }
}

bool Race::eliminated(const std::string& id) const {
  auto it = entries_.find(id);
  return it != entries_.end() && it->second.eliminated;
}

std::optional<std::string> Race::best_with(size_t samples) const {
  std::optional<std::string> best;
  double best_median = 0;
  for (auto& [id, e] : entries_) {
    if (e.withdrawn || e.eliminated || e.samples.size() < std::max<size_t>(1, samples)) continue;
    double median = summarize(e.samples).median;
    if (!best || median < best_median) {
      best = id;
      best_median = median;
    }
  }
  return best;
}

std::vector<Elimination> Race::eliminate() {
  std::vector<Elimination> out;
  if (!rule_.enabled) return out;
  auto candidate = [&](const std::string& id, const Entry& e, const std::string& best_id, size_t samples) {
    return id != best_id && !e.baseline && e.timing && !e.eliminated && !e.withdrawn && e.samples.size() >= samples;
  };
  auto drop = [&](const std::string& id, Entry& e, const char* format, double mine, double theirs, const std::string& best_id,
                  double margin) {
    e.eliminated = true;
    e.timing = false;
    char reason[300];
    std::snprintf(reason, sizeof reason, format, e.samples.size(), mine, theirs, best_id.c_str(), margin * 100);
    out.push_back({id, reason});
  };
  if (std::optional<std::string> best_id = best()) {
    const SampleSummary best = summarize(entries_.at(*best_id).samples);
    for (auto& [id, e] : entries_)
      if (candidate(id, e, *best_id, rule_.min_samples))
        if (double q1 = summarize(e.samples).q1; q1 > best.q3 * (1 + rule_.margin))
          drop(id, e, "eliminated after %zu samples: q1 %.4g ms > best q3 %.4g ms ('%s') + %.0f%% noise margin", q1, best.q3,
               *best_id, rule_.margin);
  }
  if (std::optional<std::string> best_id = best_with(rule_.early_samples); best_id && rule_.early_samples < rule_.min_samples) {
    const auto& best_samples = entries_.at(*best_id).samples;
    const double slowest = *std::max_element(best_samples.begin(), best_samples.end());
    for (auto& [id, e] : entries_)
      if (candidate(id, e, *best_id, rule_.early_samples))
        if (double fastest = *std::min_element(e.samples.begin(), e.samples.end()); fastest > slowest * (1 + rule_.early_margin))
          drop(id, e, "eliminated after %zu samples: fastest %.4g ms > slowest of best %.4g ms ('%s') + %.0f%%", fastest, slowest,
               *best_id, rule_.early_margin);
  }
  return out;
}

Timing timing_from_samples(const std::vector<double>& samples, const std::string& stop_reason) {
  Timing t;
  t.samples = samples;
  SampleSummary s = summarize(samples);
  t.median = s.median;
  t.q1 = s.q1;
  t.q3 = s.q3;
  t.min = s.min;
  t.max = s.max;
  t.mean = s.mean;
  t.stdev = s.stdev;
  t.relative_median_error = std::isfinite(s.relative_median_error) ? s.relative_median_error : -1;
  t.stop_reason = stop_reason;
  return t;
}

std::vector<VariantResult> replay_race(const std::vector<SampleStream>& streams, const StoppingRule& stopping,
                                       const RaceRule& rule) {
  Race race(rule);
  struct State {
    std::vector<double> taken;
    double elapsed_s = 0;
    bool done = false;
    std::string stop_reason, detail;
  };
  std::vector<State> states(streams.size());
  for (auto& s : streams) race.enter(s.id, s.baseline);
  // Round 0 stands for the correctness runs: each variant's first recorded
  // run screens it, as the runner's warm-up does, in plan order.
  for (size_t i = 0; i < streams.size(); ++i) {
    if (streams[i].samples_ms.empty()) continue;
    if (auto reason = race.screen(streams[i].id, streams[i].samples_ms.front())) {
      states[i].taken = {streams[i].samples_ms.front()};
      states[i].done = true;
      states[i].stop_reason = "eliminated";
      states[i].detail = *reason;
    }
  }
  for (bool any = true; any;) {
    any = false;
    for (size_t i = 0; i < streams.size(); ++i) {
      State& st = states[i];
      if (st.done) continue;
      if (race.eliminated(streams[i].id)) continue;
      if (st.taken.size() == streams[i].samples_ms.size()) {
        // The recording ends here: the variant stops as if its rule said so.
        st.done = true;
        st.stop_reason = "max_samples";
        race.finish(streams[i].id);
        continue;
      }
      double ms = streams[i].samples_ms[st.taken.size()];
      st.taken.push_back(ms);
      st.elapsed_s += ms / 1000;
      race.add_sample(streams[i].id, ms);
      any = true;
      if (StopReason r = should_stop(st.taken, st.elapsed_s, stopping); r != StopReason::KeepGoing) {
        st.done = true;
        st.stop_reason = to_string(r);
        race.finish(streams[i].id);
      }
    }
    for (auto& e : race.eliminate())
      for (size_t i = 0; i < streams.size(); ++i)
        if (streams[i].id == e.id) {
          states[i].done = true;
          states[i].stop_reason = "eliminated";
          states[i].detail = e.reason;
        }
  }
  std::vector<VariantResult> results;
  for (size_t i = 0; i < streams.size(); ++i) {
    VariantResult v;
    v.id = streams[i].id;
    v.baseline = streams[i].baseline;
    if (states[i].taken.empty()) {
      v.status = VariantStatus::NoTimingData;
      v.reason = "the recorded stream has no samples";
    } else {
      v.status = VariantStatus::Ok;
      v.timing = timing_from_samples(states[i].taken, states[i].stop_reason);
      v.timing->stop_detail = states[i].detail;
    }
    results.push_back(std::move(v));
  }
  return results;
}

} // namespace nestor::profiler
