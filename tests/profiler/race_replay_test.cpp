// Racing (race.h) replayed on sample streams, no GPU: recorded H200 streams
// (examples/profile/*/results-*.json) and synthetic ones with the awkward
// cases (tests/profiler/data/make_race_streams.py: near-ties, heavy tails,
// drift, a bimodal winner, slow starts, the BFS spread). Racing must
// end with the same recommendation as timing everything, never eliminate the
// variant that wins when everything is timed, and take fewer samples.
#include "nestor/profiler/race.h"
#include "nestor/profiler/recommend.h"
#include "nestor/profiler/report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <algorithm>
#include <cstdio>
#include <fstream>

using namespace nestor::profiler;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Scenario {
  std::string name;
  std::vector<SampleStream> streams;
};

std::vector<Scenario> load_scenarios() {
  std::vector<Scenario> out;
  std::ifstream synthetic(fs::path(NESTOR_SOURCE_DIR) / "tests/profiler/data/race_streams_synthetic.json");
  json doc = json::parse(synthetic);
  for (auto& [name, variants] : doc.at("scenarios").items()) {
    Scenario s{name, {}};
    for (auto& v : variants) s.streams.push_back({v.at("id"), v.at("baseline"), v.at("samples_ms")});
    out.push_back(std::move(s));
  }
  auto add_recorded = [&](const fs::path& file) {
    std::ifstream in(file);
    json results = json::parse(in);
    Scenario s{"recorded:" + file.parent_path().filename().string() + "/" + file.filename().string(), {}};
    for (auto& v : results.at("variants"))
      if (v.at("status") == "ok") s.streams.push_back({v.at("id"), v.at("baseline"), v.at("timing").at("samples")});
    out.push_back(std::move(s));
  };
  for (auto& entry : fs::recursive_directory_iterator(fs::path(NESTOR_SOURCE_DIR) / "examples/profile"))
    if (entry.path().filename().string().starts_with("results-") && entry.path().extension() == ".json") add_recorded(entry.path());
  // The 87-candidate CDP BFS, every variant timed to its stopping
  // rule on one H100 by bench/profiler (racing off): 5 to 10 samples each.
  add_recorded(fs::path(NESTOR_SOURCE_DIR) / "bench/profiler/results-h100/results-racing-off.json");
  return out;
}

size_t total_samples(const std::vector<VariantResult>& results) {
  size_t n = 0;
  for (auto& v : results)
    if (v.timing) n += v.timing->samples.size();
  return n;
}

const VariantResult& find(const std::vector<VariantResult>& results, const std::string& id) {
  for (auto& v : results)
    if (v.id == id) return v;
  throw std::runtime_error("no variant " + id);
}

TEST(RaceReplay, SameRecommendationAndWinnerNeverEliminated) {
  std::vector<Scenario> scenarios = load_scenarios();
  ASSERT_GE(scenarios.size(), 10u) << "six synthetic scenarios, three recorded result files and the H100 BFS bench";
  StoppingRule stopping; // the plan defaults: 5..100 samples, 1% noise target, 30 s
  RaceRule off;
  off.enabled = false;
  for (auto& s : scenarios) {
    SCOPED_TRACE(s.name);
    std::vector<VariantResult> everything = replay_race(s.streams, stopping, off);
    std::vector<VariantResult> raced = replay_race(s.streams, stopping, RaceRule{});
    Recommendation full = recommend(everything), fast = recommend(raced);
    EXPECT_EQ(fast.decision, full.decision) << fast.reason << " / " << full.reason;
    EXPECT_EQ(fast.variant, full.variant) << fast.reason << " / " << full.reason;

    // The measured fastest when everything is timed is never eliminated.
    const VariantResult* winner = nullptr;
    for (auto& v : everything)
      if (v.timing && (!winner || v.timing->median < winner->timing->median)) winner = &v;
    ASSERT_NE(winner, nullptr);
    EXPECT_NE(find(raced, winner->id).timing->stop_reason, "eliminated") << find(raced, winner->id).timing->stop_detail;
    // The baseline keeps its full timing for the speedup figures.
    for (auto& v : raced)
      if (v.baseline) EXPECT_EQ(v.timing->samples, find(everything, v.id).timing->samples);
    EXPECT_LE(total_samples(raced), total_samples(everything));
    for (auto& v : raced) {
      if (v.timing->stop_reason != "eliminated") continue;
      EXPECT_GE(v.timing->samples.size(), 1u) << v.id;
      EXPECT_TRUE(v.timing->stop_detail.starts_with("eliminated after " + std::to_string(v.timing->samples.size()) + " sample"))
          << v.timing->stop_detail;
    }
  }
}

TEST(RaceReplay, BfsLikeSpreadStopsTheLosersEarly) {
  std::vector<Scenario> scenarios = load_scenarios();
  auto it = std::find_if(scenarios.begin(), scenarios.end(), [](auto& s) { return s.name == "bfs_like"; });
  ASSERT_NE(it, scenarios.end());
  StoppingRule stopping;
  RaceRule off;
  off.enabled = false;
  std::vector<VariantResult> everything = replay_race(it->streams, stopping, off);
  std::vector<VariantResult> raced = replay_race(it->streams, stopping, RaceRule{});
  // The numbers: coarsen-2 took 91 samples of 60 ms, threshold-32 100
  // of 7 ms. Far losers go at their correctness run (screening).
  EXPECT_EQ(find(raced, "coarsen-2").timing->samples.size(), 1u);
  EXPECT_EQ(find(raced, "threshold-32").timing->samples.size(), 1u);
  EXPECT_NE(find(raced, "threshold-32").timing->stop_detail.find("correctness run"), std::string::npos);
  // Close ones are judged on more samples.
  EXPECT_GE(find(raced, "aggregate-block").timing->samples.size(), 3u);
  double full_ms = 0, raced_ms = 0;
  for (auto& v : everything)
    for (double x : v.timing->samples) full_ms += x;
  for (auto& v : raced)
    for (double x : v.timing->samples) raced_ms += x;
  EXPECT_LT(raced_ms, full_ms / 4) << "GPU time spent timing: raced " << raced_ms << " ms vs " << full_ms << " ms";
  EXPECT_EQ(recommend(raced).variant, std::optional<std::string>("aggregate-warp"));

  // The report says why a variant stopped.
  Results results;
  results.variants = raced;
  results.recommendation = recommend(raced);
  EXPECT_NE(render_markdown(results).find("eliminated after 1 sample (its correctness run)"), std::string::npos);
}

// The plan with the medians one H100 measured (bench/profiler): every
// variant is a whole program run of ~0.6 s there, so the number of runs is
// the wall time. Racing must keep the recommendation and cut the runs to
// what a 2-minute budget allows (about 190 runs, warm-ups included).
TEST(RaceReplay, H100BfsMediansNeedFewRuns) {
  std::vector<Scenario> scenarios = load_scenarios();
  auto it = std::find_if(scenarios.begin(), scenarios.end(), [](auto& s) { return s.name == "h100_bfs"; });
  ASSERT_NE(it, scenarios.end());
  StoppingRule stopping;
  RaceRule off;
  off.enabled = false;
  std::vector<VariantResult> everything = replay_race(it->streams, stopping, off);
  std::vector<VariantResult> raced = replay_race(it->streams, stopping, RaceRule{});
  EXPECT_EQ(recommend(raced).variant, recommend(everything).variant);
  size_t runs = total_samples(raced) + it->streams.size(); // + one correctness run each
  size_t screened = 0;
  for (auto& v : raced) screened += v.timing->samples.size() == 1 && v.timing->stop_reason == "eliminated";
  EXPECT_GE(screened, it->streams.size() / 2) << "most candidates are far slower than the best";
  EXPECT_LT(runs, (total_samples(everything) + it->streams.size()) / 3);
  std::printf("h100_bfs (%zu variants): %zu runs raced (%zu eliminated at their correctness run) vs %zu timing everything\n",
              it->streams.size(), runs, screened, total_samples(everything) + it->streams.size());
}

TEST(Race, RulesOfElimination) {
  Race race;
  race.enter("baseline", true);
  race.enter("fast", false);
  race.enter("slow", false);
  race.enter("young", false);
  for (int i = 0; i < 5; ++i) {
    race.add_sample("baseline", 10 + i * 0.01);
    race.add_sample("fast", 1 + i * 0.01);
    race.add_sample("slow", 5 + i * 0.01);
  }
  race.add_sample("young", 9); // fewer than min_samples: never judged
  EXPECT_EQ(race.best(), std::optional<std::string>("fast"));
  std::vector<Elimination> out = race.eliminate();
  ASSERT_EQ(out.size(), 1u) << "the baseline is never eliminated, the young variant not yet";
  EXPECT_EQ(out[0].id, "slow");
  EXPECT_TRUE(race.eliminated("slow"));
  EXPECT_TRUE(race.eliminate().empty()) << "reported once";

  // Within the noise margin: 2% above the best's q3 is not enough.
  // Early check: after 3 samples, no overlap at all plus 25%.
  Race early;
  early.enter("best", false);
  early.enter("far", false);
  early.enter("near", false);
  for (double x : {1.0, 1.1, 0.9}) early.add_sample("best", x);
  for (double x : {1.5, 1.6, 1.4}) early.add_sample("far", x);
  for (double x : {1.3, 1.2, 1.5}) early.add_sample("near", x);
  out = early.eliminate();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "far");
  EXPECT_TRUE(out[0].reason.starts_with("eliminated after 3 samples: fastest 1.4 ms > slowest of best 1.1 ms ('best')"))
      << out[0].reason;

  Race close;
  close.enter("a", false);
  close.enter("b", false);
  for (int i = 0; i < 5; ++i) {
    close.add_sample("a", 1.00);
    close.add_sample("b", 1.015);
  }
  EXPECT_TRUE(close.eliminate().empty());
  // A failed best no longer counts.
  close.withdraw("a");
  EXPECT_EQ(close.best(), std::optional<std::string>("b"));

  // Screening: the correctness run against the best so far, by a factor of 2.
  Race screening;
  screening.enter("baseline", true);
  screening.enter("best", false);
  screening.enter("close", false);
  screening.enter("far", false);
  EXPECT_FALSE(screening.screen("baseline", 30.0)) << "the baseline is never screened out";
  EXPECT_FALSE(screening.screen("best", 0.11));
  EXPECT_FALSE(screening.screen("close", 0.2)) << "within 2x";
  std::optional<std::string> far = screening.screen("far", 2.3);
  ASSERT_TRUE(far);
  EXPECT_TRUE(far->starts_with("eliminated after 1 sample (its correctness run): 2.3 ms > 2x the slowest run of best 0.11 ms ('best')")) << *far;
  EXPECT_TRUE(screening.eliminated("far"));

  RaceRule off;
  off.enabled = false;
  Race disabled(off);
  disabled.enter("a", false);
  disabled.enter("b", false);
  for (int i = 0; i < 5; ++i) {
    disabled.add_sample("a", 1);
    disabled.add_sample("b", 100);
  }
  EXPECT_TRUE(disabled.eliminate().empty());
}

} // namespace
