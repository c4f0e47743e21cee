// Results of executing a plan: what the runner writes (RESULTS.json), what the
// recommender reads, and what the report writers render. No CUDA dependency,
// so the LSP side can link this (library nestor_profiler_report).
// Schema: docs/profiler-results.schema.json, described in docs/profiler.md.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace nestor::profiler {

inline constexpr int kResultsSchemaVersion = 1;

// Why a variant cannot be recommended. Ok is the only status that can be.
enum class VariantStatus {
  Ok,
  BuildFailed,
  Crashed,        // killed by a signal
  Timeout,        // process group killed after the plan's timeout
  NonzeroExit,
  CudaError,      // CUDA error text in the program's output
  OutputMismatch, // differs from the baseline's outputs
  NoTimingData,   // the injection library recorded no kernels / wrote nothing
  NotRun,         // e.g. the baseline failed, so nothing could be checked
};
const char* to_string(VariantStatus status);
VariantStatus variant_status_from_string(const std::string& text); // throws std::invalid_argument

struct Timing {
  std::string unit = "ms";
  // "kernel_sum": sum of kernel durations recorded by libnestor_cupti;
  // "wall_clock": process wall time. activity_kind says which CUPTI records
  // (CONCURRENT_KERNEL misses CDP children; KERNEL is serialised and includes them).
  std::string source = "wall_clock";
  std::optional<std::string> activity_kind;
  std::vector<double> samples;
  std::vector<std::optional<double>> sm_clock_mhz; // one per sample; null when unknown
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0, mean = 0, stdev = 0;
  double relative_median_error = 0;
  size_t warmup_runs = 0;
  std::string stop_reason; // settled | max_samples | time_limit | eliminated | interrupted
  // Why timing stopped early, in words ("eliminated after 5 samples: q1 ... >
  // best q3 ..."); empty when the stopping rule ended it.
  std::string stop_detail;
  double iqr() const { return q3 - q1; }
};

struct VariantResult {
  std::string id;
  bool baseline = false;
  std::string description;
  nlohmann::json params = nlohmann::json::object();
  VariantStatus status = VariantStatus::NotRun;
  std::string reason;   // one line, empty when Ok
  std::string log_tail; // last lines of the failing step's output
  std::optional<Timing> timing;
  nlohmann::json metrics;             // object of metric -> value, or null
  std::optional<std::string> metrics_error;
  std::optional<int> device;          // GPU index the variant was timed on
  bool from_cache = false;
  std::string cache_key;
};

struct Recommendation {
  // "variant": apply `variant`; "keep_baseline": nothing measured beats the baseline beyond noise.
  std::string decision = "keep_baseline";
  std::optional<std::string> variant;
  std::optional<double> speedup; // baseline median / variant median
  std::string criterion;         // the rule applied, in words
  std::string reason;            // why this decision, in words
};

struct GpuInfo {
  int index = 0;
  std::string name;
};

struct Environment {
  std::vector<GpuInfo> gpus;
  std::optional<std::string> driver_version;
  std::optional<int> cuda_driver_api_version; // cuDriverGetVersion, e.g. 13000
  // True only under the NESTOR_RUNNER_ASSUME_DEVICES test seam: device
  // detection was skipped. Reports say so, so such results are never mistaken
  // for GPU measurements.
  bool devices_assumed = false;
  std::string hostname;
};

struct Results {
  int schema_version = kResultsSchemaVersion;
  std::string tool = "nestor-runner";
  std::string plan;         // path of the plan that was executed
  std::string generated_at; // ISO 8601 UTC
  std::string timing_mode;  // "cupti" | "wall_clock"
  Environment environment;
  std::vector<VariantResult> variants;
  Recommendation recommendation;
};

class ResultsFormatError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

nlohmann::json to_json(const Results& results);
nlohmann::json to_json(const VariantResult& variant);
VariantResult variant_from_json(const nlohmann::json& j);
Results results_from_json(const nlohmann::json& j); // throws ResultsFormatError with the failing field

} // namespace nestor::profiler
