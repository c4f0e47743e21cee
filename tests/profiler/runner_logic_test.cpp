// nestor-runner logic against a fake program (fake_gpu_program.cpp) instead of
// a GPU program, with the NESTOR_RUNNER_ASSUME_DEVICES test seam. What is
// checked is the runner's handling of builds, runs, failures, output checks,
// timing loop, cache and recommendation.
//
// No verdict depends on how fast the machine is: every run's sample is the
// time the fake program reports (NESTOR_RUNNER_REPORTED_MS: sleep_ms plus a
// fixed jitter cycle, without sleeping), and where a test is about an order
// of events (timing overlapping builds, an interrupt while a program hangs,
// two devices in use) the fake program waits for the event itself
// (build_wait_for, run_wait_for, rendezvous). Timeouts are generous upper
// bounds that only a broken runner reaches. One test checks the wall clock
// itself, with a lower bound only.
#include "nestor/profiler/report.h"
#include "nestor/profiler/process.h"
#include "nestor/profiler/runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <thread>
#include <csignal>
#include <sys/wait.h>

using namespace nestor::profiler;
namespace fs = std::filesystem;
using nlohmann::json;

#ifndef NESTOR_FAKE_PROGRAM
#error "NESTOR_FAKE_PROGRAM must be defined by CMake"
#endif

namespace {

/// Whether process `pid` is gone (or a zombie) within `seconds`: SIGKILL of a
/// process group is delivered asynchronously, and under load the killed
/// grandchild can take a moment to die after the runner has moved on. The
/// limit is only reached when the process survived.
bool gone_within(pid_t pid, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    if (stat.empty() || stat.find(") Z") != std::string::npos) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

struct RunnerFixture : ::testing::Test {
  fs::path dir;
  json plan;
  std::vector<std::string> progress_lines;
  RunnerOptions options;

  void SetUp() override {
    setenv("NESTOR_RUNNER_ASSUME_DEVICES", "1", 1);
    setenv("NESTOR_RUNNER_REPORTED_MS", ".fake-run-ms", 1);
    dir = fs::temp_directory_path() / ("nestor-runner-test-" + std::to_string(getpid())) /
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir);
    fs::create_directories(dir / "project");
    fs::create_directories(dir / "variants");
    write(dir / "project/main.fake", "behaviour=ok\nsleep_ms=30\n");
    write(dir / "project/README", "project file that must stay untouched\n");
    plan = {
        {"schema_version", 1},
        {"project_dir", "project"},
        {"scratch_dir", "scratch"},
        {"build", {{"command", std::string(NESTOR_FAKE_PROGRAM) + " build {source} {exe}"}, {"timeout_s", 30}}},
        // Long enough that no run but a hung one reaches it, however loaded the machine.
        {"run", {{"command", "{exe} out.txt"}, {"timeout_s", kRunTimeout}}},
        {"check", {{"outputs", {"out.txt", "<stdout>"}}, {"rel_tolerance", 1e-6}, {"abs_tolerance", 1e-6}}},
        {"timing", {{"mode", "wall_clock"}, {"min_samples", 5}, {"max_samples", 8}, {"noise_target", 0.5}, {"time_limit_s", 5}}},
        {"variants", json::array({{{"id", "baseline"}, {"baseline", true}, {"source", "main.fake"}}})},
    };
    options.cache_path = dir / "cache.jsonl";
    options.progress = [this](const std::string& line) { progress_lines.push_back(line); };
  }
  void TearDown() override {
    unsetenv("NESTOR_RUNNER_ASSUME_DEVICES");
    unsetenv("NESTOR_RUNNER_REPORTED_MS");
  }
  static constexpr double kRunTimeout = 10;

  // Calls `action` once, when a progress line starting with `prefix` is
  // printed (from the runner's threads).
  void on_progress(const std::string& prefix, std::function<void()> action) {
    auto fired = std::make_shared<bool>(false);
    options.progress = [this, prefix, action, fired](const std::string& line) {
      progress_lines.push_back(line);
      if (!*fired && line.starts_with(prefix)) {
        *fired = true;
        action();
      }
    };
  }

  static void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

  void add_variant(const std::string& id, const std::string& config, json extra = json::object()) {
    write(dir / "variants" / (id + ".fake"), config);
    json v = {{"id", id}, {"source", "main.fake"}, {"files", {{"main.fake", "variants/" + id + ".fake"}}}};
    v.update(extra);
    plan["variants"].push_back(v);
  }

  Results run() {
    std::ofstream(dir / "plan.json") << plan.dump(2);
    return run_plan(load_plan(dir / "plan.json"), options);
  }

  static const VariantResult& find(const Results& r, const std::string& id) {
    for (auto& v : r.variants)
      if (v.id == id) return v;
    throw std::runtime_error("no variant " + id);
  }
};

TEST_F(RunnerFixture, ClassifiesEveryFailureAndRecommendsFastestCorrect) {
  add_variant("fast", "behaviour=ok\nsleep_ms=10\n", {{"params", {{"coarsening", 4}}}});
  add_variant("slow", "behaviour=ok\nsleep_ms=60\n");
  // Correct within tolerance but clearly slower than `fast`: at 30 ms (the
  // baseline's time) a clean-clone CI on a loaded 2-core machine once timed
  // it below `fast` and recommended it.
  add_variant("close_floats", "behaviour=ok\nsleep_ms=90\nvalue_offset=1e-9\n");
  add_variant("far_floats", "behaviour=ok\nsleep_ms=1\nvalue_offset=1e-3\n");
  add_variant("wrong", "behaviour=wrong\nsleep_ms=1\n");
  add_variant("crash", "behaviour=crash\nsleep_ms=1\n");
  add_variant("hang", "behaviour=hang\nsleep_ms=1\n");
  add_variant("build_error", "behaviour=build_error\n");
  add_variant("cuda_error", "behaviour=cuda_error\nsleep_ms=1\n");
  add_variant("exit_nonzero", "behaviour=exit_nonzero\nsleep_ms=1\n");
  add_variant("missing_output", "behaviour=missing_output\nsleep_ms=1\n");
  options.keep_scratch = true;
  Results r = run();

  EXPECT_TRUE(r.environment.devices_assumed);
  EXPECT_EQ(r.timing_mode, "wall_clock");
  EXPECT_EQ(find(r, "baseline").status, VariantStatus::Ok);
  EXPECT_EQ(find(r, "fast").status, VariantStatus::Ok);
  EXPECT_EQ(find(r, "slow").status, VariantStatus::Ok);
  EXPECT_EQ(find(r, "close_floats").status, VariantStatus::Ok) << find(r, "close_floats").reason;
  EXPECT_EQ(find(r, "far_floats").status, VariantStatus::OutputMismatch) << "1e-3 is beyond the tolerance";
  EXPECT_EQ(find(r, "wrong").status, VariantStatus::OutputMismatch);
  EXPECT_NE(find(r, "wrong").reason.find("differs from the baseline"), std::string::npos) << find(r, "wrong").reason;
  EXPECT_EQ(find(r, "crash").status, VariantStatus::Crashed) << find(r, "crash").reason;
  EXPECT_EQ(find(r, "hang").status, VariantStatus::Timeout);
  EXPECT_EQ(find(r, "build_error").status, VariantStatus::BuildFailed);
  EXPECT_NE(find(r, "build_error").log_tail.find("fake compile error"), std::string::npos);
  EXPECT_EQ(find(r, "cuda_error").status, VariantStatus::CudaError);
  EXPECT_NE(find(r, "cuda_error").reason.find("illegal memory access"), std::string::npos);
  EXPECT_EQ(find(r, "exit_nonzero").status, VariantStatus::NonzeroExit);
  EXPECT_NE(find(r, "exit_nonzero").reason.find("exit code 2"), std::string::npos);
  EXPECT_EQ(find(r, "missing_output").status, VariantStatus::OutputMismatch);
  EXPECT_NE(find(r, "missing_output").reason.find("was not written"), std::string::npos);

  for (auto& v : r.variants) {
    if (v.status == VariantStatus::Ok) {
      ASSERT_TRUE(v.timing) << v.id;
      // Racing stops the hopeless ones at their correctness run or after 3 or 5 samples.
      EXPECT_GE(v.timing->samples.size(), v.timing->stop_reason == "eliminated" ? 1u : 5u) << v.id;
      EXPECT_LE(v.timing->samples.size(), 8u) << v.id;
      EXPECT_EQ(v.timing->source, "wall_clock");
      EXPECT_EQ(v.timing->sm_clock_mhz.size(), v.timing->samples.size());
    } else {
      EXPECT_FALSE(v.timing) << v.id << " failed but has a timing";
      EXPECT_FALSE(v.reason.empty()) << v.id;
    }
  }
  // Reported times 10 / 30 / 60 ms, each within the fake program's +-3 ms jitter.
  EXPECT_LT(find(r, "fast").timing->median, find(r, "baseline").timing->median);
  EXPECT_LT(find(r, "baseline").timing->median, find(r, "slow").timing->median);
  EXPECT_GE(find(r, "fast").timing->median, 7.0);
  EXPECT_LE(find(r, "fast").timing->median, 13.0);

  ASSERT_EQ(r.recommendation.decision, "variant") << r.recommendation.reason;
  EXPECT_EQ(r.recommendation.variant, std::optional<std::string>("fast"));
  EXPECT_EQ(find(r, "fast").params["coarsening"], 4);

  // The hung program's background child was killed with its process group.
  fs::path pid_file = dir / "scratch/hang/project/child.pid";
  ASSERT_TRUE(fs::exists(pid_file));
  pid_t child = std::stoi(read_file(pid_file));
  EXPECT_TRUE(gone_within(child, 60)) << "hung child survived";
  // The user's project is never modified.
  EXPECT_EQ(read_file(dir / "project/main.fake"), "behaviour=ok\nsleep_ms=30\n");
  EXPECT_FALSE(fs::exists(dir / "project/out.txt"));

  std::string md = render_markdown(r);
  EXPECT_NE(md.find("Test mode"), std::string::npos) << "assumed devices are stated in the report";
}

TEST_F(RunnerFixture, EqualVariantIsNotRecommended) {
  // Both report 200 ms plus the same +-3 ms jitter cycle (at most 1.5%, under
  // the criterion's 2%), whichever runs of the cycle each one's samples are.
  write(dir / "project/main.fake", "behaviour=ok\nsleep_ms=200\n");
  plan["timing"]["min_samples"] = 15;
  plan["timing"]["max_samples"] = 15;
  add_variant("same", "behaviour=ok\nsleep_ms=200\n");
  Results r = run();
  EXPECT_EQ(find(r, "same").status, VariantStatus::Ok);
  EXPECT_EQ(r.recommendation.decision, "keep_baseline") << r.recommendation.reason;
}

TEST_F(RunnerFixture, BrokenBaselineMeansNothingIsChecked) {
  write(dir / "project/main.fake", "behaviour=crash\nsleep_ms=1\n");
  add_variant("fast", "behaviour=ok\nsleep_ms=1\n");
  add_variant("broken_build", "behaviour=build_error\n");
  Results r = run();
  EXPECT_EQ(find(r, "baseline").status, VariantStatus::Crashed);
  EXPECT_EQ(find(r, "fast").status, VariantStatus::NotRun);
  EXPECT_NE(find(r, "fast").reason.find("baseline"), std::string::npos);
  EXPECT_EQ(find(r, "broken_build").status, VariantStatus::BuildFailed);
  EXPECT_EQ(r.recommendation.decision, "keep_baseline");
}

TEST_F(RunnerFixture, CheckCommandDecidesCorrectness) {
  plan["check"] = {{"command", "cmp -s out.txt {baseline_workdir}/out.txt"}, {"outputs", {"out.txt"}}};
  add_variant("wrong", "behaviour=wrong\nsleep_ms=1\n");
  add_variant("right", "behaviour=ok\nsleep_ms=1\n");
  Results r = run();
  EXPECT_EQ(find(r, "right").status, VariantStatus::Ok);
  EXPECT_EQ(find(r, "wrong").status, VariantStatus::OutputMismatch);
  plan["check"] = {{"command", "grep -q 'wrote out.txt' out.txt"}};
  r = run();
  EXPECT_EQ(find(r, "baseline").status, VariantStatus::OutputMismatch) << "a check failing on the baseline is reported";
  EXPECT_EQ(find(r, "right").status, VariantStatus::NotRun);
}

TEST_F(RunnerFixture, CacheReusedUnlessFreshAndInvalidatedBySourceChange) {
  add_variant("fast", "behaviour=ok\nsleep_ms=5\n");
  add_variant("wrong", "behaviour=wrong\nsleep_ms=1\n");
  Results first = run();
  for (auto& v : first.variants) EXPECT_FALSE(v.from_cache) << v.id;

  Results second = run();
  for (auto& v : second.variants) EXPECT_TRUE(v.from_cache) << v.id;
  EXPECT_EQ(find(second, "fast").timing->samples, find(first, "fast").timing->samples);
  EXPECT_EQ(find(second, "wrong").status, VariantStatus::OutputMismatch);
  EXPECT_EQ(second.recommendation.decision, first.recommendation.decision);

  write(dir / "variants/fast.fake", "behaviour=ok\nsleep_ms=6\n");
  Results third = run();
  EXPECT_FALSE(find(third, "fast").from_cache) << "variant source changed";
  EXPECT_TRUE(find(third, "wrong").from_cache);
  EXPECT_TRUE(find(third, "baseline").from_cache);

  options.fresh = true;
  Results fresh = run();
  for (auto& v : fresh.variants) EXPECT_FALSE(v.from_cache) << v.id;
}

TEST_F(RunnerFixture, SeveralDevicesGetOneWorkerEach) {
  setenv("NESTOR_RUNNER_ASSUME_DEVICES", "2", 1);
  // Every variant's run waits until runs on both devices have started: a
  // runner that timed everything on one device would time them all out.
  for (int i = 0; i < 4; ++i)
    add_variant("v" + std::to_string(i), "behaviour=ok\nsleep_ms=20\nrendezvous=" + (dir / "devices").string() + ":2\n");
  Results r = run();
  std::set<int> devices;
  for (auto& v : r.variants) {
    ASSERT_EQ(v.status, VariantStatus::Ok) << v.id << ": " << v.reason;
    ASSERT_TRUE(v.device);
    devices.insert(*v.device);
  }
  EXPECT_EQ(devices, (std::set<int>{0, 1}));
  EXPECT_EQ(r.environment.gpus.size(), 2u);
}

TEST_F(RunnerFixture, NoDeviceAndSeamRestrictions) {
  unsetenv("NESTOR_RUNNER_ASSUME_DEVICES");
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  EXPECT_THROW(run(), NoDeviceError);
  unsetenv("CUDA_VISIBLE_DEVICES");

  setenv("NESTOR_RUNNER_ASSUME_DEVICES", "1", 1);
  plan["timing"]["mode"] = "cupti";
  try {
    run();
    FAIL() << "CUPTI timing accepted with assumed devices";
  } catch (const PlanError& e) {
    EXPECT_NE(std::string(e.what()).find("test seam"), std::string::npos);
  }
}

// The wall clock itself (the other tests take reported times): a sample is
// the whole run, so never shorter than the program's sleep, however fast or
// loaded the machine is (only a lower bound is checked).
TEST_F(RunnerFixture, WallClockSampleCoversTheWholeRun) {
  unsetenv("NESTOR_RUNNER_REPORTED_MS");
  write(dir / "project/main.fake", "behaviour=ok\nsleep_ms=40\n");
  plan["timing"]["min_samples"] = 3;
  plan["timing"]["max_samples"] = 3;
  Results r = run();
  const VariantResult& baseline = find(r, "baseline");
  ASSERT_EQ(baseline.status, VariantStatus::Ok) << baseline.reason;
  ASSERT_EQ(baseline.timing->samples.size(), 3u);
  for (double ms : baseline.timing->samples) EXPECT_GE(ms, 37.0) << "40 ms sleep (minus at most 3 ms jitter)";
  EXPECT_EQ(baseline.timing->source, "wall_clock");
}

// Under the reported-time seam a program that reports nothing has no timing:
// never a wall-clock figure instead.
TEST_F(RunnerFixture, ReportedTimeSeamWithoutReportIsNoTimingData) {
  plan["run"]["command"] = "{exe} out.txt && rm .fake-run-ms";
  Results r = run();
  EXPECT_EQ(find(r, "baseline").status, VariantStatus::NoTimingData);
  EXPECT_NE(find(r, "baseline").reason.find(".fake-run-ms"), std::string::npos) << find(r, "baseline").reason;
}

// Racing in the runner: interleaved rounds; a hopeless variant stops at its
// correctness run, a merely slower one after 3-5 samples, both with the
// reason; the baseline keeps its full timing; the recommendation is the one
// of timing everything.
TEST_F(RunnerFixture, RacingInterleavesAndEliminatesHopelessVariants) {
  plan["timing"] = {{"mode", "wall_clock"}, {"min_samples", 5}, {"max_samples", 12}, {"noise_target", 0.0001}, {"time_limit_s", 30}};
  plan["run"]["env"] = {{"NESTOR_FAKE_RUN_LOG", (dir / "runs.log").string()}};
  // Every variant is built before the baseline's reference run ends (it waits
  // for the last build), so all of them are timed in the same rounds. Where
  // "slower" (1.6x) goes depends on which build finished first (the rules
  // themselves are checked exactly by race_replay_test on recorded streams).
  fs::path all_built = dir / "all-built";
  write(dir / "project/main.fake", "behaviour=ok\nsleep_ms=30\nrun_wait_for=" + all_built.string() + "\n");
  auto builds_ok = std::make_shared<int>(0);
  options.progress = [this, builds_ok, all_built](const std::string& line) {
    progress_lines.push_back(line);
    if (line.starts_with("[build] ") && line.find(": ok") != std::string::npos && ++*builds_ok == 4)
      write(all_built, "");
  };
  add_variant("fast", "behaviour=ok\nsleep_ms=10\n");
  add_variant("slower", "behaviour=ok\nsleep_ms=16\n");
  add_variant("hopeless", "behaviour=ok\nsleep_ms=150\n");
  Results raced = run();
  const Timing& hopeless = *find(raced, "hopeless").timing;
  EXPECT_EQ(hopeless.stop_reason, "eliminated");
  EXPECT_EQ(hopeless.samples.size(), 1u) << "more than 2x the best at its correctness run";
  EXPECT_NE(hopeless.stop_detail.find("eliminated after 1 sample (its correctness run): "), std::string::npos) << hopeless.stop_detail;
  // The best so far depends on which builds finished first.
  EXPECT_NE(hopeless.stop_detail.find("slowest run of best "), std::string::npos) << hopeless.stop_detail;
  const Timing& slower = *find(raced, "slower").timing;
  if (slower.stop_reason == "eliminated") EXPECT_TRUE(slower.stop_detail.starts_with("eliminated after ")) << slower.stop_detail;
  else EXPECT_GE(slower.samples.size(), 5u);
  EXPECT_EQ(find(raced, "baseline").timing->samples.size(), 12u) << "the baseline is timed to its stopping rule";
  EXPECT_EQ(raced.recommendation.variant, std::optional<std::string>("fast"));
  json written = to_json(raced);
  bool found = false;
  for (auto& v : written["variants"])
    if (v["id"] == "hopeless") found = v["timing"]["stop_detail"].get<std::string>().starts_with("eliminated after 1 sample");
  EXPECT_TRUE(found) << "results.json carries the reason";

  // Interleaved: while several are timed, no variant runs twice in a row.
  std::vector<std::string> order;
  {
    std::ifstream in(dir / "runs.log");
    for (std::string line; std::getline(in, line);) order.push_back(line);
  }
  // The baseline (12 samples) and fast (at least 5) are timed together.
  size_t first = std::find(order.begin(), order.end(), "fast") - order.begin();
  ASSERT_LT(first + 6, order.size());
  for (size_t i = first + 1; i < first + 6; ++i) EXPECT_NE(order[i], order[i - 1]) << "run " << i << ": round robin";

  options.race.enabled = false;
  Results everything = run();
  EXPECT_EQ(find(everything, "hopeless").timing->samples.size(), 12u);
  EXPECT_EQ(find(everything, "hopeless").timing->stop_reason, "max_samples");
  EXPECT_EQ(everything.recommendation.variant, raced.recommendation.variant);
}

// Timing starts while slow builds are still running: slow_build's build ends
// only once quick has run, so a runner that waited for every build before
// timing would let that build time out.
TEST_F(RunnerFixture, BuildsOverlapWithTiming) {
  options.build_jobs = 2;
  plan["build"]["timeout_s"] = 120;
  fs::path quick_ran = dir / "quick-ran";
  add_variant("quick", "behaviour=ok\nsleep_ms=10\ntouch_on_run=" + quick_ran.string() + "\n");
  add_variant("slow_build", "behaviour=ok\nsleep_ms=10\nbuild_wait_for=" + quick_ran.string() + "\n");
  Results r = run();
  EXPECT_EQ(find(r, "quick").status, VariantStatus::Ok) << find(r, "quick").reason;
  EXPECT_EQ(find(r, "slow_build").status, VariantStatus::Ok) << "built only after quick ran: " << find(r, "slow_build").reason;
  auto line_of = [&](const std::string& prefix) {
    return std::find_if(progress_lines.begin(), progress_lines.end(), [&](auto& l) { return l.starts_with(prefix); }) -
           progress_lines.begin();
  };
  EXPECT_LT(line_of("[build] quick: ok"), line_of("[build] slow_build: ok"));
}

// An interrupt (Ctrl-C, scancel's SIGTERM) kills the running program; the
// variants finished before it are in the cache and a rerun resumes from them.
TEST_F(RunnerFixture, InterruptedRunResumesFromMeasuredResults) {
  options.build_jobs = 2;
  plan["timing"]["noise_target"] = 0.5;
  // "endless" is built only once "first" is measured (its progress line).
  fs::path first_timed = dir / "first-timed";
  on_progress("[time] first:", [first_timed] { write(first_timed, ""); });
  add_variant("first", "behaviour=ok\nsleep_ms=5\n");
  add_variant("endless", "behaviour=hang\nsleep_ms=1\nbuild_wait_for=" + first_timed.string() + "\n");
  plan["run"]["timeout_s"] = 600; // the interrupt, not the timeout, must end the hung run
  std::thread interrupter([&] {
    // Interrupt while "endless" hangs (its program wrote its child's pid).
    // The bound is only reached when the runner never ran it.
    for (int i = 0; i < 3000 && !fs::exists(dir / "scratch/endless/project/child.pid"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    request_interrupt();
  });
  Results partial = run();
  interrupter.join();
  clear_interrupt();
  EXPECT_EQ(find(partial, "endless").status, VariantStatus::NotRun);
  EXPECT_NE(find(partial, "endless").reason.find("interrupted"), std::string::npos) << find(partial, "endless").reason;
  ASSERT_EQ(find(partial, "first").status, VariantStatus::Ok) << find(partial, "first").reason;
  pid_t child = std::stoi(read_file(dir / "scratch/endless/project/child.pid"));
  EXPECT_TRUE(gone_within(child, 60)) << "the hung program's child survived the interrupt";

  plan["run"]["timeout_s"] = kRunTimeout;
  Results resumed = run();
  EXPECT_TRUE(find(resumed, "first").from_cache) << "measured before the interrupt";
  EXPECT_EQ(find(resumed, "first").timing->samples, find(partial, "first").timing->samples);
  EXPECT_EQ(find(resumed, "endless").status, VariantStatus::Timeout) << "measured again";
}

// The executable: exit codes and files, as `nestor profile` will call it.
TEST_F(RunnerFixture, ExecutableExitCodesAndReports) {
  add_variant("fast", "behaviour=ok\nsleep_ms=5\n");
  std::ofstream(dir / "plan.json") << plan.dump(2);
  std::string runner = NESTOR_RUNNER_EXE;
  auto status = [](const std::string& command) {
    int s = std::system(command.c_str());
    return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
  };
  std::string base = runner + " " + (dir / "plan.json").string() + " --cache " + (dir / "c.jsonl").string();
  EXPECT_EQ(status("CUDA_VISIBLE_DEVICES= NESTOR_RUNNER_ASSUME_DEVICES= " + base + " -o " + (dir / "r.json").string() +
                   " 2>" + (dir / "err.txt").string()), 3);
  EXPECT_NE(read_file(dir / "err.txt").find("no CUDA device"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "r.json"));

  EXPECT_EQ(status(base + " -o " + (dir / "r.json").string() + " --report " + (dir / "r.md").string() + " --report " +
                   (dir / "r.svg").string() + " --quiet"), 0);
  Results r = results_from_json(json::parse(read_file(dir / "r.json")));
  EXPECT_EQ(r.variants.size(), 2u);
  EXPECT_NE(read_file(dir / "r.md").find("| fast |"), std::string::npos);
  EXPECT_EQ(read_file(dir / "r.svg").rfind("<svg", 0), 0u);

  EXPECT_EQ(status(base + " 2>/dev/null"), 2) << "missing -o";
  EXPECT_EQ(status(runner + " " + (dir / "nope.json").string() + " -o x.json 2>/dev/null"), 2) << "unreadable plan";
  EXPECT_EQ(status(base + " -o r.json --report r.pdf 2>/dev/null"), 2);
  EXPECT_EQ(status(base + " -o r.json --bogus 2>/dev/null"), 2);
}


// Results are written to a temporary file and renamed over the old ones: a
// runner killed between the two (SIGKILL, no handler runs) leaves the previous
// results file intact and the new one complete beside it.
TEST_F(RunnerFixture, KilledBetweenWriteAndRenameKeepsThePreviousResults) {
  add_variant("fast", "behaviour=ok\nsleep_ms=5\n");
  std::ofstream(dir / "plan.json") << plan.dump(2);
  const std::string previous = "{\"previous\": \"results the user already has\"}\n";
  write(dir / "r.json", previous);
  std::string command = "NESTOR_TEST_PAUSE_BEFORE_RENAME_MS=60000 exec " + std::string(NESTOR_RUNNER_EXE) + " " +
                        (dir / "plan.json").string() + " --cache " + (dir / "c.jsonl").string() + " -o " +
                        (dir / "r.json").string() + " --quiet 2>&1";
  FILE* runner = popen(command.c_str(), "r");
  ASSERT_NE(runner, nullptr);
  std::string temporary;
  char line[4096];
  while (std::fgets(line, sizeof line, runner)) {
    std::string text = line;
    if (auto at = text.find("paused before renaming "); at != std::string::npos) {
      temporary = text.substr(at + 23);
      temporary.erase(temporary.find_last_not_of("\r\n") + 1);
      break;
    }
  }
  ASSERT_FALSE(temporary.empty()) << "the runner never reached the rename";
  // The temporary file is named after the writer's pid (path.tmp-PID).
  pid_t writer = std::stoi(temporary.substr(temporary.rfind("-") + 1));
  ASSERT_EQ(::kill(writer, SIGKILL), 0);
  pclose(runner);
  EXPECT_EQ(read_file(dir / "r.json"), previous) << "the previous results are untouched";
  ASSERT_TRUE(fs::exists(temporary));
  Results complete = results_from_json(json::parse(read_file(temporary)));
  EXPECT_EQ(complete.variants.size(), 2u) << "the new results were complete before the rename";

  // A rerun (the cache has both variants) replaces the file as a whole.
  fs::remove(temporary);
  std::string rerun = std::string(NESTOR_RUNNER_EXE) + " " + (dir / "plan.json").string() + " --cache " +
                      (dir / "c.jsonl").string() + " -o " + (dir / "r.json").string() + " --quiet";
  ASSERT_EQ(std::system(rerun.c_str()), 0);
  EXPECT_EQ(results_from_json(json::parse(read_file(dir / "r.json"))).variants.size(), 2u);
}

} // namespace
