// nestor-runner: executes a plan (build, run, check, time every variant) and
// produces Results. No LLVM and no link-time CUDA dependency.
#pragma once
#include "nestor/profiler/plan.h"
#include "nestor/profiler/race.h"
#include "nestor/profiler/results.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace nestor::profiler {

// Thrown when no CUDA device can be used; nestor-runner exits with code 3.
class NoDeviceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct RunnerOptions {
  std::optional<std::filesystem::path> cache_path; // default: <plan dir>/.nestor-runner-cache.jsonl
  bool fresh = false;                              // ignore cached results (still appends new ones)
  std::optional<std::filesystem::path> cupti_library; // default: libnestor_cupti.so next to the runner
  unsigned build_jobs = 0;                         // 0: number of CPU cores
  bool keep_scratch = false;
  std::optional<std::filesystem::path> scratch_dir; // overrides the plan's scratch_dir
  std::function<void(const std::string&)> progress; // one line per event; may be empty
  RaceRule race;                                   // racing (adaptive sampling); race.enabled = false times every variant to its stopping rule

  // Split execution (the Slurm executor, docs/profiler.md):
  // build_only: copy and build every variant into the scratch root, write
  // <scratch>/<id>/built.ok for each success, time nothing (no device needed).
  bool build_only = false;
  // reuse_builds: the scratch root holds a build_only run's copies and
  // executables; nothing is copied or built (variants without built.ok are build_failed).
  bool reuse_builds = false;
  // Time only these variants; the baseline still runs once for the reference
  // outputs, in a private copy, and is reported only when listed.
  std::optional<std::vector<std::string>> only_variants;
  std::string worker_tag; // names the private baseline copy and reference ("task-3"); required with only_variants
  std::vector<std::filesystem::path> extra_caches; // read-only caches whose records are reused too
};

// What libnestor_cupti.so wrote for one run, reduced to the timing sample.
struct CuptiRunSummary {
  double kernel_time_ms = 0;
  size_t kernel_count = 0;
  std::string activity_kind;
  nlohmann::json metrics; // object or null
  std::optional<std::string> metrics_error;
};
// Throws std::runtime_error when the document is not a libnestor_cupti output.
CuptiRunSummary summarize_cupti_output(const nlohmann::json& document);

Results run_plan(const Plan& plan, const RunnerOptions& options);

// Where the runner looks for the injection library by default.
std::filesystem::path default_cupti_library();

} // namespace nestor::profiler
