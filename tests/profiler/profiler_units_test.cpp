// Unit tests of the parts of profiler/ that need neither a GPU nor a program
// run: statistics, recommender, report model and writers, plan parsing,
// output comparison, cache keys and cache file, process control.
#include "nestor/profiler/cache.h"
#include "nestor/profiler/devices.h"
#include "nestor/profiler/output_check.h"
#include "nestor/profiler/plan.h"
#include "nestor/profiler/process.h"
#include "nestor/profiler/recommend.h"
#include "nestor/profiler/report.h"
#include "nestor/profiler/runner.h"
#include "nestor/profiler/stats.h"

#include <gtest/gtest.h>

#include <functional>

#include <csignal>
#include <fstream>
#include <thread>

using namespace nestor::profiler;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("nestor-profiler-test-" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

VariantResult timed(const std::string& id, bool baseline, std::vector<double> samples,
                    VariantStatus status = VariantStatus::Ok) {
  VariantResult v;
  v.id = id;
  v.baseline = baseline;
  v.status = status;
  SampleSummary s = summarize(samples);
  Timing t;
  t.samples = samples;
  t.sm_clock_mhz.assign(samples.size(), std::nullopt);
  t.median = s.median, t.q1 = s.q1, t.q3 = s.q3, t.min = s.min, t.max = s.max, t.mean = s.mean, t.stdev = s.stdev;
  t.stop_reason = "settled";
  v.timing = t;
  return v;
}

} // namespace

// ---- statistics ----------------------------------------------------------

TEST(Devices, MixedModelsKeepGpu0sModel) {
  DeviceInventory inv;
  inv.gpus = {{0, "NVIDIA H200"}, {1, "NVIDIA A100"}, {2, "NVIDIA H200"}};
  inv.visible_ids = {"0", "1", "2"};
  std::vector<std::string> skipped = keep_one_model(inv);
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_EQ(inv.gpus[0].index, 0);
  EXPECT_EQ(inv.gpus[1].index, 2);
  EXPECT_EQ(inv.visible_ids, (std::vector<std::string>{"0", "2"}));
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("GPU 1 (NVIDIA A100) is not used"), std::string::npos) << skipped[0];

  DeviceInventory alike;
  alike.gpus = {{0, "NVIDIA H200"}, {1, "NVIDIA H200"}};
  alike.visible_ids = {"3", "5"};
  EXPECT_TRUE(keep_one_model(alike).empty());
  EXPECT_EQ(alike.visible_ids, (std::vector<std::string>{"3", "5"}));
}

TEST(Stats, QuartilesAndMedian) {
  SampleSummary s = summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.iqr(), 2);
  EXPECT_NEAR(s.stdev, 1.5811, 1e-4);
  EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 4}).median, 2.5);
}

TEST(Stats, StoppingRule) {
  StoppingRule rule{.min_samples = 3, .max_samples = 6, .noise_target = 0.01, .time_limit_s = 10};
  EXPECT_EQ(should_stop({10, 10}, 0.1, rule), StopReason::KeepGoing) << "below the minimum count";
  EXPECT_EQ(should_stop({10, 10, 10}, 0.1, rule), StopReason::Settled);
  EXPECT_EQ(should_stop({10, 20, 5}, 0.1, rule), StopReason::KeepGoing) << "too noisy to stop";
  EXPECT_EQ(should_stop({10, 20, 5, 9, 30, 1}, 0.1, rule), StopReason::MaxSamples);
  EXPECT_EQ(should_stop({10, 20}, 11, rule), StopReason::TimeLimit) << "time limit wins over the minimum count";
  EXPECT_EQ(should_stop({}, 11, rule), StopReason::KeepGoing) << "at least one sample";
}

// ---- recommender -----------------------------------------------------------

TEST(Recommend, FastestCorrectVariantBeyondNoise) {
  std::vector<VariantResult> v = {timed("base", true, {10, 10.2, 9.9, 10.1, 10}),
                                  timed("fast", false, {5, 5.1, 4.9, 5, 5.05}),
                                  timed("faster_but_wrong", false, {1, 1, 1, 1, 1}, VariantStatus::OutputMismatch),
                                  timed("medium", false, {7, 7, 7.1, 6.9, 7})};
  Recommendation r = recommend(v);
  EXPECT_EQ(r.decision, "variant");
  ASSERT_TRUE(r.variant);
  EXPECT_EQ(*r.variant, "fast");
  EXPECT_NEAR(*r.speedup, 2.0, 0.05);
  EXPECT_NE(r.criterion.find("IQR"), std::string::npos);
}

TEST(Recommend, NamesVariantsWithinTheWinnersNoise) {
  std::vector<VariantResult> v = {timed("base", true, {10, 10.2, 9.9, 10.1, 10}),
                                  timed("fast", false, {5, 5.1, 4.9, 5, 5.05}),
                                  timed("tied", false, {5.04, 5.1, 5.02, 5.08, 5.06}),
                                  timed("medium", false, {7, 7, 7.1, 6.9, 7})};
  Recommendation r = recommend(v);
  ASSERT_TRUE(r.variant);
  EXPECT_EQ(*r.variant, "fast");
  EXPECT_NE(r.reason.find("within its noise (IQRs overlap): 'tied'"), std::string::npos) << r.reason;
  EXPECT_EQ(r.reason.find("medium"), std::string::npos) << r.reason;
}

TEST(Recommend, OverlappingIqrKeepsBaseline) {
  std::vector<VariantResult> v = {timed("base", true, {10, 12, 9, 11, 10}), timed("same", false, {9.5, 11.5, 9, 10.5, 10})};
  Recommendation r = recommend(v);
  EXPECT_EQ(r.decision, "keep_baseline");
  EXPECT_FALSE(r.variant);
  EXPECT_NE(r.reason.find("not faster beyond the noise"), std::string::npos) << r.reason;
}

TEST(Recommend, SlowerVariantsKeepBaselineWithTheRightReason) {
  std::vector<VariantResult> v = {timed("base", true, {0.45, 0.454, 0.455}), timed("flat", false, {0.82, 0.822, 0.823})};
  Recommendation r = recommend(v);
  EXPECT_EQ(r.decision, "keep_baseline");
  EXPECT_NE(r.reason.find("slower than the baseline"), std::string::npos) << r.reason;
  EXPECT_EQ(r.reason.find("IQRs overlap"), std::string::npos) << r.reason;
}

TEST(Recommend, TinyStableGainKeepsBaseline) {
  std::vector<VariantResult> v = {timed("base", true, {10, 10, 10, 10}), timed("tiny", false, {9.95, 9.95, 9.95, 9.95})};
  Recommendation r = recommend(v);
  EXPECT_EQ(r.decision, "keep_baseline") << "0.5% is below the 2% minimum gain";
  EXPECT_NE(r.reason.find("gain below the minimum"), std::string::npos) << r.reason;
}

TEST(Recommend, FailedBaselineOrNoCorrectVariant) {
  std::vector<VariantResult> v = {timed("base", true, {10}, VariantStatus::Crashed), timed("fast", false, {1})};
  v[0].timing.reset();
  EXPECT_EQ(recommend(v).decision, "keep_baseline");
  std::vector<VariantResult> w = {timed("base", true, {10}), timed("bad", false, {1}, VariantStatus::Timeout)};
  Recommendation r = recommend(w);
  EXPECT_EQ(r.decision, "keep_baseline");
  EXPECT_NE(r.reason.find("no variant"), std::string::npos);
}

// ---- results model and report writers -----------------------------------

Results sample_results() {
  Results r;
  r.plan = "/tmp/plan.json";
  r.generated_at = "2026-01-01T00:00:00Z";
  r.timing_mode = "cupti";
  r.environment.gpus = {{0, "NVIDIA H100 80GB HBM3"}};
  r.environment.driver_version = "580.65";
  r.environment.cuda_driver_api_version = 13000;
  r.variants = {timed("baseline", true, {10, 10.2, 9.9}), timed("warp<per>row", false, {5, 5.1, 4.9})};
  r.variants[0].timing->source = "kernel_sum";
  r.variants[0].timing->activity_kind = "KERNEL";
  r.variants[1].params = {{"threshold", 128}};
  VariantResult broken;
  broken.id = "broken";
  broken.status = VariantStatus::OutputMismatch;
  broken.reason = "output 'out.txt' differs from the baseline: value 3 is 2.5, baseline 1.5";
  r.variants.push_back(broken);
  r.recommendation = recommend(r.variants);
  return r;
}

TEST(Report, JsonRoundTrip) {
  Results r = sample_results();
  json j = to_json(r);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["variants"][1]["timing"]["count"], 3);
  EXPECT_EQ(j["variants"][2]["timing"], nullptr);
  Results back = results_from_json(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.variants[2].status, VariantStatus::OutputMismatch);
  EXPECT_EQ(back.recommendation.variant, std::optional<std::string>("warp<per>row"));
}

TEST(Report, ReadingBadResultsNamesTheField) {
  json j = to_json(sample_results());
  j["variants"][1].erase("status");
  try {
    results_from_json(j);
    FAIL() << "missing status accepted";
  } catch (const ResultsFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("status is missing"), std::string::npos) << e.what();
  }
  json k = to_json(sample_results());
  k["schema_version"] = 99;
  EXPECT_THROW(results_from_json(k), ResultsFormatError);
  json l = to_json(sample_results());
  l["variants"][0]["status"] = "great";
  EXPECT_THROW(results_from_json(l), ResultsFormatError);
}

// Found by tests/fuzz/fuzz_plan_results: integer fields holding numbers out of
// their type's range (undefined behaviour in nlohmann's conversion), and
// clock entries that are not numbers (an nlohmann type_error escaped).
TEST(Report, ReadingResultsRejectsOutOfRangeIntegersAndBadClocks) {
  auto message = [](const std::function<void(json&)>& change) {
    json j = to_json(sample_results());
    change(j);
    try {
      results_from_json(j);
    } catch (const ResultsFormatError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message([](json& j) { j["variants"][1]["device"] = 1.66667e59; }).find("device must be an integer in range"),
            std::string::npos);
  EXPECT_NE(message([](json& j) { j["variants"][1]["device"] = 0.5; }).find("must be an integer"), std::string::npos);
  EXPECT_NE(message([](json& j) { j["variants"][1]["timing"]["warmup_runs"] = -1; }).find("warmup_runs is out of range"),
            std::string::npos);
  EXPECT_NE(message([](json& j) { j["schema_version"] = 4294967297ull; }).find("schema_version is out of range"),
            std::string::npos);
  EXPECT_NE(message([](json& j) { j["variants"][1]["timing"]["sm_clock_mhz"] = json::array({"fast"}); })
                .find("sm_clock_mhz holds a string"),
            std::string::npos);
  EXPECT_EQ(message([](json& j) { j["variants"][1]["device"] = 2.0; }), "accepted"); // an integral double is fine
}

TEST(Report, MarkdownTableAndRecommendation) {
  std::string md = render_markdown(sample_results());
  EXPECT_NE(md.find("| Variant | Status | Median (ms)"), std::string::npos);
  EXPECT_NE(md.find("| baseline (baseline) | ok | 10.0000"), std::string::npos) << md;
  EXPECT_NE(md.find("| broken | output_mismatch |"), std::string::npos) << md;
  EXPECT_NE(md.find("apply `warp<per>row`"), std::string::npos) << md;
  EXPECT_NE(md.find("serialised"), std::string::npos) << "states what was timed";
}

TEST(Report, SvgBarsErrorBarsAndEscaping) {
  std::string svg = render_svg(sample_results());
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t p = svg.find(needle); p != std::string::npos; p = svg.find(needle, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count("<rect class=\"bar "), 2u) << "one bar per timed variant";
  EXPECT_EQ(count("class=\"whisker\""), 2u);
  EXPECT_EQ(count("-row\""), 3u) << "one row per variant";
  EXPECT_EQ(count("<text class=\"note incorrect\""), 1u) << "the wrong variant is marked incorrect";
  EXPECT_NE(svg.find("speedup over the baseline (log scale)"), std::string::npos);
  EXPECT_NE(svg.find("warp&lt;per&gt;row"), std::string::npos);
  EXPECT_EQ(svg.find("warp<per>row"), std::string::npos);
}

TEST(Report, WriteReportByExtension) {
  fs::path dir = fresh_dir("report");
  Results r = sample_results();
  write_report(r, (dir / "r.json").string());
  write_report(r, (dir / "r.md").string());
  write_report(r, (dir / "r.svg").string());
  EXPECT_EQ(json::parse(read_file(dir / "r.json")), to_json(r));
  EXPECT_THROW(write_report(r, (dir / "r.txt").string()), std::runtime_error);
  EXPECT_THROW(write_report(r, "/nonexistent-dir/r.json"), std::runtime_error);
}

// ---- plan parsing ------------------------------------------------------------

struct PlanFixture : ::testing::Test {
  fs::path dir;
  json plan;
  void SetUp() override {
    dir = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    write(dir / "project/main.cu", "int main() {}\n");
    write(dir / "variants/fast.cu", "int main() { return 0; }\n");
    plan = json::parse(R"({
      "schema_version": 1,
      "project_dir": "project",
      "build": {"command": "nvcc {defines} {flags} -o {exe} {source}"},
      "run": {"command": "{exe} out.txt", "timeout_s": 5},
      "check": {"outputs": ["out.txt"], "rel_tolerance": 1e-6},
      "timing": {"mode": "wall_clock", "min_samples": 3},
      "variants": [
        {"id": "baseline", "baseline": true, "source": "main.cu"},
        {"id": "fast", "source": "main.cu", "files": {"main.cu": "variants/fast.cu"},
         "defines": {"THRESHOLD": 128}, "params": {"threshold": 128}}
      ]})");
  }
  std::string error_of(const json& j) {
    try {
      parse_plan(j, dir / "plan.json");
    } catch (const PlanError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(PlanFixture, ValidPlanWithDefaultsAndResolvedPaths) {
  Plan p = parse_plan(plan, dir / "plan.json");
  EXPECT_EQ(p.project_dir, (dir / "project").lexically_normal());
  EXPECT_EQ(p.timing_mode, TimingMode::WallClock);
  EXPECT_EQ(p.stopping.min_samples, 3u);
  EXPECT_EQ(p.stopping.max_samples, 100u);
  EXPECT_EQ(p.warmup_runs, 1u);
  EXPECT_DOUBLE_EQ(p.run_timeout_s, 5);
  EXPECT_EQ(p.baseline().id, "baseline");
  EXPECT_EQ(p.variants[1].files.at("main.cu"), (dir / "variants/fast.cu").lexically_normal().string());
  EXPECT_EQ(p.variants[1].defines.at("THRESHOLD"), "128");
  EXPECT_EQ(defines_to_flags(p.variants[1].defines), "'-DTHRESHOLD=128'");
}

TEST_F(PlanFixture, BadPlansGiveClearErrors) {
  auto with = [&](auto edit) {
    json j = plan;
    edit(j);
    return error_of(j);
  };
  EXPECT_NE(with([](json& j) { j.erase("schema_version"); }).find("schema_version"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["schema_version"] = 7; }).find("not supported"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"][0]["baseline"] = false; }).find("exactly one variant"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"][1]["baseline"] = true; }).find("found 2"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"][1]["id"] = "baseline"; }).find("duplicate id 'baseline'"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"][1]["id"] = "a b"; }).find("may only contain"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["bulid"] = 1; }).find("unknown field 'bulid'"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["build"]["command"] = "nvcc -o {exe} {sorce}"; }).find("unknown placeholder {sorce}"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["timing"]["mode"] = "gpu"; }).find("'cupti' or 'wall_clock'"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["timing"]["max_samples"] = 2; }).find("max_samples must be >= min_samples"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["timing"]["min_samples"] = 0; }).find("min_samples must be an integer >= 1"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"][1]["source"] = "../etc/passwd"; }).find("inside the project"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"][1]["files"]["main.cu"] = "variants/none.cu"; }).find("not a readable file"), std::string::npos);
  // Files a variant copies in must come from the plan folder.
  EXPECT_NE(with([](json& j) { j["variants"][1]["files"]["main.cu"] = "/etc/passwd"; }).find("inside the plan folder"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"][1]["files"]["main.cu"] = "variants/../../secret.cu"; }).find("inside the plan folder"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"][1]["files"]["../out.cu"] = "variants/none.cu"; }).find("inside the project"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"][1]["source"] = "missing.cu"; }).find("does not exist"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["check"] = json::object(); }).find("correctness check"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["check"]["format"] = "xml"; }).find("text, f32, f64, bytes"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["project_dir"] = "nowhere"; }).find("is not a directory"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"] = json::array(); }).find("non-empty array"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["run"]["timeout_s"] = -1; }).find("positive number"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["variants"][1]["defines"]["1BAD"] = "x"; }).find("not a macro name"), std::string::npos);
  EXPECT_NE(error_of(json::array()).find("JSON object"), std::string::npos);
}

TEST_F(PlanFixture, LoadPlanReportsUnreadableAndInvalidJson) {
  write(dir / "broken.json", "{ \"schema_version\": 1, ");
  EXPECT_THROW(load_plan(dir / "broken.json"), PlanError);
  EXPECT_THROW(load_plan(dir / "absent.json"), PlanError);
  write(dir / "overflow.json", "{ \"schema_version\": 1E999 }"); // nlohmann: out_of_range, not parse_error
  try {
    load_plan(dir / "overflow.json");
    ADD_FAILURE() << "a number overflow was accepted";
  } catch (const PlanError& e) {
    EXPECT_NE(std::string(e.what()).find("is not valid JSON"), std::string::npos) << e.what();
  }
  write(dir / "plan.json", plan.dump());
  EXPECT_EQ(load_plan(dir / "plan.json").variants.size(), 2u);
}

TEST(Plan, ExpandTemplate) {
  EXPECT_EQ(expand_template("cc {a} -o {b} {{x}} ${HOME} {1}", {{"a", "x.c"}, {"b", "x"}}, "t"), "cc x.c -o x {{x}} ${HOME} {1}")
      << "only {identifier} is a placeholder; shell ${VAR} also contains a placeholder-like name";
}

// ---- output checks ----------------------------------------------------------

TEST(OutputCheck, TextExactAndTolerance) {
  EXPECT_TRUE(compare_outputs("1 2 3\n", "1 2 3\n", "text", 0, 0).equal);
  EXPECT_TRUE(compare_outputs("1 2 3\n", "1,2,3", "text", 0, 0).equal) << "separators do not matter";
  CompareResult c = compare_outputs("1 2 3", "1 2.0001 3", "text", 0, 0);
  EXPECT_FALSE(c.equal);
  EXPECT_NE(c.difference.find("value 1"), std::string::npos) << c.difference;
  EXPECT_TRUE(compare_outputs("1 2 3", "1 2.0001 3", "text", 0, 1e-3).equal);
  EXPECT_FALSE(compare_outputs("1 2 3", "1 2.1 3", "text", 0, 1e-3).equal);
  EXPECT_TRUE(compare_outputs("1 2 3", "1 2.05 3", "text", 0.1, 0).equal);
  EXPECT_FALSE(compare_outputs("sum 3", "total 3", "text", 1, 1).equal) << "words compared exactly";
  EXPECT_FALSE(compare_outputs("1 2 3", "1 2", "text", 1, 1).equal);
  EXPECT_FALSE(compare_outputs("nan", "1", "text", 1, 1).equal);
  EXPECT_TRUE(compare_outputs("nan", "nan", "text", 0, 0).equal);
}

TEST(OutputCheck, BinaryFloats) {
  auto bytes = [](std::vector<float> v) { return std::string(reinterpret_cast<char*>(v.data()), v.size() * sizeof(float)); };
  EXPECT_TRUE(compare_outputs(bytes({1, 2}), bytes({1, 2.000001f}), "f32", 0, 1e-5).equal);
  EXPECT_FALSE(compare_outputs(bytes({1, 2}), bytes({1, 2.000001f}), "f32", 0, 0).equal) << "no tolerance: exact bytes";
  EXPECT_FALSE(compare_outputs(bytes({1, 2}), bytes({1, 2, 3}), "f32", 1, 1).equal);
  EXPECT_FALSE(compare_outputs(bytes({1, 2}), "abc", "f32", 1, 1).equal);
}

TEST(OutputCheck, CudaErrorText) {
  std::string line;
  EXPECT_TRUE(contains_cuda_error("ok\nkernel.cu:12: CUDA error: an illegal memory access was encountered\nbye", &line));
  EXPECT_EQ(line, "kernel.cu:12: CUDA error: an illegal memory access was encountered");
  EXPECT_TRUE(contains_cuda_error("GPUassert: cudaErrorLaunchFailure", nullptr));
  EXPECT_TRUE(contains_cuda_error("CUDA_ERROR_OUT_OF_MEMORY", nullptr));
  EXPECT_FALSE(contains_cuda_error("sum = 42\nall good\n", nullptr));
}

// ---- cache -------------------------------------------------------------------

TEST(Cache, Sha256KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST(Cache, KeyDependsOnEveryInput) {
  CacheKeyInputs base{"src", "bsrc", "v", {{"threshold", 32}}, "-DX=1", "nvcc", "run", "check", "timing", "H100", "580", "13000"};
  std::string key = cache_key(base);
  EXPECT_EQ(key, cache_key(base)) << "deterministic";
  std::vector<std::function<void(CacheKeyInputs&)>> edits = {
      [](auto& k) { k.source_hash = "other"; }, [](auto& k) { k.baseline_source_hash = "other"; },
      [](auto& k) { k.variant_id = "w"; },       [](auto& k) { k.params["threshold"] = 64; },
      [](auto& k) { k.flags = "-DX=2"; },        [](auto& k) { k.build_command = "clang"; },
      [](auto& k) { k.run_command = "r2"; },     [](auto& k) { k.check = "c2"; },
      [](auto& k) { k.timing = "t2"; },          [](auto& k) { k.gpu = "H200"; },
      [](auto& k) { k.driver_version = "590"; }, [](auto& k) { k.cuda_version = "13010"; },
  };
  for (size_t i = 0; i < edits.size(); ++i) {
    CacheKeyInputs changed = base;
    edits[i](changed);
    EXPECT_NE(cache_key(changed), key) << "edit " << i << " did not change the key";
  }
}

TEST(Cache, TreeHashFollowsContentAndNames) {
  fs::path dir = fresh_dir("tree");
  write(dir / "a/x.cu", "1");
  write(dir / "b.cu", "2");
  std::string h = hash_tree(dir);
  write(dir / "b.cu", "3");
  EXPECT_NE(hash_tree(dir), h);
  write(dir / "b.cu", "2");
  EXPECT_EQ(hash_tree(dir), h);
  fs::rename(dir / "b.cu", dir / "c.cu");
  EXPECT_NE(hash_tree(dir), h);
}

TEST(Cache, AppendReloadLastWinsAndTornLines) {
  fs::path file = fresh_dir("cache") / "sub" / "cache.jsonl";
  {
    ResultCache cache(file);
    EXPECT_FALSE(cache.find("k1"));
    cache.append("k1", timed("a", true, {1, 2, 3}));
    cache.append("k1", timed("a", true, {4, 5, 6}));
    cache.append("k2", timed("b", false, {7}));
  }
  std::ofstream(file, std::ios::app) << "{\"key\": \"k3\", \"resu";
  ResultCache reloaded(file);
  EXPECT_EQ(reloaded.skipped_lines(), 1u);
  ASSERT_TRUE(reloaded.find("k1"));
  EXPECT_DOUBLE_EQ(reloaded.find("k1")->timing->median, 5) << "last record of a key wins";
  EXPECT_TRUE(reloaded.find("k2"));
  EXPECT_FALSE(reloaded.find("k3"));
  size_t lines = 0;
  std::ifstream in(file);
  for (std::string l; std::getline(in, l);) ++lines;
  EXPECT_EQ(lines, 4u) << "append-only";
}

// ---- processes -------------------------------------------------------------------

TEST(Process, ExitCodesSignalsOutput) {
  fs::path dir = fresh_dir("process");
  ProcessSpec spec{"echo out; echo err >&2; exit 3", dir, {{"NESTOR_X", "y"}}, dir / "o", dir / "e", 10};
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(read_file(dir / "o"), "out\n");
  EXPECT_EQ(read_file(dir / "e"), "err\n");
  spec.command = "test \"$NESTOR_X\" = y && test \"$(pwd)\" = '" + dir.string() + "'";
  EXPECT_TRUE(run_process(spec).ok()) << "environment and work directory";
  spec.command = "kill -SEGV $$";
  r = run_process(spec);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(r.describe().find("signal 11"), std::string::npos);
}

// The group never ends by itself (its child sleeps for days): run_process
// returns only because the timeout killed it, so no elapsed time is checked;
// a timeout that did not kill would hang the test until ctest's limit.
TEST(Process, TimeoutKillsTheWholeGroup) {
  fs::path dir = fresh_dir("timeout");
  ProcessSpec spec{"sleep 1000000 & echo $! > child.pid; wait", dir, {}, dir / "o", dir / "e", 5};
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  pid_t child = std::stoi(read_file(dir / "child.pid"));
  // SIGKILL of a group is delivered asynchronously: wait for the child to go
  // (the bound is reached only when it survived).
  std::string stat;
  for (int i = 0; i < 3000; ++i) {
    stat = read_file("/proc/" + std::to_string(child) + "/stat");
    if (stat.empty() || stat.find(") Z") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(stat.empty() || stat.find(") Z") != std::string::npos) << "background child survived: " << stat;
}

TEST(Process, TailLines) {
  EXPECT_EQ(tail_lines("a\nb\nc\nd\n", 2), "c\nd\n");
  EXPECT_EQ(tail_lines("a\nb", 5), "a\nb");
}

// ---- injection library output -----------------------------------------------------

TEST(CuptiOutput, SumsKernelDurations) {
  json doc = {{"tool", "nestor_cupti"}, {"activity_kind", "KERNEL"},
              {"kernels", {{{"start_ns", 1000}, {"end_ns", 3000}}, {{"start_ns", 5000}, {"end_ns", 6500}}}},
              {"metrics", nullptr}};
  CuptiRunSummary s = summarize_cupti_output(doc);
  EXPECT_EQ(s.kernel_count, 2u);
  EXPECT_DOUBLE_EQ(s.kernel_time_ms, 0.0035);
  EXPECT_EQ(s.activity_kind, "KERNEL");
  EXPECT_THROW(summarize_cupti_output(json{{"tool", "other"}}), std::runtime_error);
  EXPECT_THROW(summarize_cupti_output(json{{"tool", "nestor_cupti"}}), std::runtime_error);
}
