// GPU test: nestor-runner end to end on a plan of examples/profile/: builds
// with nvcc, checks outputs, times with libnestor_cupti.so, prints the table,
// and the recommendation must be the measured fastest correct variant when it
// is faster beyond the noise (else "keep the baseline"). Variants whose id
// starts with "wrong" must be rejected, every other variant must run. With two
// or more GPUs visible, the variants must have run on more than one of them.
//   args: RUNNER PLAN OUTDIR CUPTI_LIBRARY EXPECTED_DECISION(variant|keep_baseline|any)
#include "nestor/profiler/results.h"

#include <nestor/gpu_test.cuh>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

using namespace nestor::profiler;
namespace fs = std::filesystem;

static int failures = 0;
#define EXPECT(cond, ...)                  \
  do {                                     \
    if (!(cond)) {                         \
      std::printf("FAILED: %s: ", #cond);  \
      std::printf(__VA_ARGS__);            \
      std::printf("\n");                   \
      ++failures;                          \
    }                                      \
  } while (0)

int main(int argc, char** argv) {
  nestor::test::require_gpu_or_skip();
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s RUNNER PLAN OUTDIR CUPTI_LIBRARY EXPECTED_DECISION\n", argv[0]);
    return 2;
  }
  std::string expected_decision = argv[5];
  fs::path outdir = argv[3];
  fs::create_directories(outdir);
  std::string command = std::string("'") + argv[1] + "' '" + argv[2] + "' -o '" + (outdir / "results.json").string() +
                        "' --report '" + (outdir / "report.md").string() + "' --report '" + (outdir / "report.svg").string() +
                        "' --cache '" + (outdir / "cache.jsonl").string() + "' --fresh --cupti-lib '" + argv[4] + "'";
  std::printf("$ %s\n", command.c_str());
  std::fflush(stdout);
  int status = std::system(command.c_str());
  EXPECT(status == 0, "nestor-runner exited with %d", status);
  std::ifstream in(outdir / "results.json");
  if (!in) {
    std::printf("FAILED: no results.json\n");
    return 1;
  }
  Results r = results_from_json(nlohmann::json::parse(in));

  const VariantResult* fastest = nullptr;
  for (auto& v : r.variants) {
    std::printf("%s: %s %s", v.id.c_str(), to_string(v.status), v.reason.c_str());
    if (v.timing)
      std::printf(" median %.4f ms IQR %.4f-%.4f n=%zu kind=%s clock0=%s", v.timing->median, v.timing->q1, v.timing->q3,
                  v.timing->samples.size(), v.timing->activity_kind.value_or("?").c_str(),
                  v.timing->sm_clock_mhz.empty() || !v.timing->sm_clock_mhz[0] ? "null"
                                                                                 : std::to_string(*v.timing->sm_clock_mhz[0]).c_str());
    std::printf("\n  metrics: %s%s\n", v.metrics.is_object() ? v.metrics.value("aggregate", nlohmann::json()).dump().c_str() : "null",
                v.metrics_error ? (" error: " + *v.metrics_error).c_str() : "");
    if (v.status == VariantStatus::Ok && v.timing && (!fastest || v.timing->median < fastest->timing->median)) fastest = &v;
  }
  std::fflush(stdout);
  // Print the Markdown report the runner wrote (the table and the recommendation).
  {
    std::ifstream md(outdir / "report.md");
    std::printf("%s\n", std::string(std::istreambuf_iterator<char>(md), {}).c_str());
  }
  const VariantResult* baseline = nullptr;
  for (auto& v : r.variants) {
    if (v.baseline) baseline = &v;
    bool wrong = v.id.rfind("wrong", 0) == 0;
    if (wrong) EXPECT(v.status == VariantStatus::OutputMismatch, "%s must be rejected, got %s", v.id.c_str(), to_string(v.status));
    else EXPECT(v.status == VariantStatus::Ok, "%s must run correctly, got %s: %s", v.id.c_str(), to_string(v.status), v.reason.c_str());
    if (v.timing) EXPECT(v.timing->source == "kernel_sum" && v.timing->median > 0, "%s: CUPTI kernel time", v.id.c_str());
  }
  EXPECT(!r.environment.devices_assumed, "real devices");
  // One worker per visible GPU: with several GPUs the variants are spread.
  {
    std::set<int> used;
    for (auto& v : r.variants)
      if (v.device) used.insert(*v.device);
    std::printf("GPUs visible: %zu, used by the variants:", r.environment.gpus.size());
    for (int d : used) std::printf(" %d", d);
    std::printf("\n");
    if (r.environment.gpus.size() >= 2 && r.variants.size() >= 2)
      EXPECT(used.size() >= 2, "%zu GPUs visible but the variants ran on %zu", r.environment.gpus.size(), used.size());
    else
      std::printf("one GPU: spreading over workers not exercised here\n");
  }
  EXPECT(r.timing_mode == "cupti", "cupti timing");
  std::printf("recommendation: %s %s (%s)\n", r.recommendation.decision.c_str(), r.recommendation.variant.value_or("-").c_str(),
              r.recommendation.reason.c_str());
  EXPECT(fastest != nullptr && baseline != nullptr && baseline->timing, "baseline and a fastest variant were timed");
  if (fastest && baseline && baseline->timing) {
    // The rule, checked independently of the recommender's code.
    bool beyond_noise = !fastest->baseline && fastest->timing->q3 < baseline->timing->q1 &&
                        fastest->timing->median <= 0.98 * baseline->timing->median;
    if (beyond_noise)
      EXPECT(r.recommendation.decision == "variant" && r.recommendation.variant == fastest->id,
             "measured fastest correct variant %s beats the baseline beyond noise but recommendation is %s %s", fastest->id.c_str(),
             r.recommendation.decision.c_str(), r.recommendation.variant.value_or("-").c_str());
    else
      EXPECT(r.recommendation.decision == "keep_baseline", "nothing beats the baseline beyond noise, yet %s was recommended",
             r.recommendation.variant.value_or("-").c_str());
  }
  if (expected_decision != "any")
    EXPECT(r.recommendation.decision == expected_decision, "expected decision %s", expected_decision.c_str());
  for (auto& v : r.variants)
    if (v.id.rfind("wrong", 0) == 0) EXPECT(r.recommendation.variant != v.id, "wrong variant recommended");
  std::printf(failures ? "e2e: %d failure(s)\n" : "e2e: all checks passed\n", failures);
  return failures ? 1 : 0;
}
