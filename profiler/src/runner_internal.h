// The runner's execution of one plan, shared by runner.cpp (devices, scratch
// copies, cache, builds, baseline reference) and runner_timing.cpp (the
// raced, round-robin timing loop that overlaps with the builds).
#pragma once
#include "nestor/profiler/cache.h"
#include "nestor/profiler/devices.h"
#include "nestor/profiler/race.h"
#include "nestor/profiler/runner.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace nestor::profiler::detail {

// Everything the runner knows about one variant while it executes.
struct Job {
  const VariantSpec* spec = nullptr;
  std::filesystem::path workdir; // scratch copy of the project
  std::filesystem::path logdir;  // logs and CUPTI files, outside the copy
  std::filesystem::path exe;
  std::string build_command, run_command;
  std::string cache_key;
  bool cached = false;
  bool built = false;
  bool reported = true;        // false: the baseline run only for the reference outputs of a worker's share
  // Timing state (owned by the GPU worker the job is assigned to).
  bool checked = false;        // warm-up runs done, outputs match the baseline's
  bool finished = false;
  bool recorded = false;       // appended to the cache
  std::vector<double> samples;
  std::vector<std::optional<double>> clocks;
  double timed_s = 0;          // wall time of this variant's timed runs
  std::optional<double> correctness_ms; // the first warm-up's time: racing screens with it
  std::optional<std::string> activity_kind;
  std::string eliminated;      // set under the race lock: why racing stopped it
  VariantResult result;
};

struct RunOutcome {
  bool ok = false;
  bool interrupted = false;
  VariantStatus status = VariantStatus::Ok;
  std::string reason, log_tail;
  double sample_ms = 0, wall_s = 0;
  std::optional<CuptiRunSummary> cupti;
};

class PlanRunner {
public:
  PlanRunner(const Plan& plan, const RunnerOptions& options) : plan_(plan), options_(options), race_(options.race) {}
  Results run();

private:
  const Plan& plan_;
  const RunnerOptions& options_;
  DeviceInventory devices_;
  std::filesystem::path cupti_library_;
  std::filesystem::path scratch_;
  bool owns_scratch_ = false;
  std::filesystem::path reference_dir_;
  std::deque<Job> jobs_;
  std::map<std::string, Job*> by_id_;
  std::optional<ResultCache> cache_;
  std::vector<ResultCache> extra_caches_;
  std::mutex progress_mutex_;
  bool baseline_checked_ = false;
  // Test seam NESTOR_RUNNER_REPORTED_MS (with NESTOR_RUNNER_ASSUME_DEVICES
  // only): the file, in the run's work dir, from which a run's sample is read
  // instead of its wall time. Empty: the wall clock.
  std::string reported_ms_file_;

  // Shared between build threads and GPU workers (runner_timing.cpp).
  std::mutex schedule_mutex_;
  std::condition_variable schedule_cv_;
  std::deque<Job*> ready_;     // built, checked against nothing yet, waiting for a GPU worker
  size_t builds_left_ = 0;
  bool baseline_done_ = false; // check_baseline has run (successfully or not)
  std::mutex race_mutex_;
  Race race_;

  void progress(const std::string& line);
  Job& baseline_job();
  bool selected(const VariantSpec& spec) const;
  void prepare_scratch();
  void compute_cache_keys();
  void build(Job& job);
  void build_all_only();
  void check_baseline(Job& baseline);
  std::string check_outputs(Job& job);
  void fail(Job& job, VariantStatus status, const std::string& reason, const std::string& log_tail);
  void record(Job& job); // appends a final result to the cache at once, so an interrupted run keeps it
  RunOutcome run_once(Job& job, const std::string& visible_id, const std::string& tag, bool metrics_run = false);
  Results collect();

  // runner_timing.cpp
  void build_and_time();
  void gpu_worker(size_t worker);
  bool step(Job& job, const std::string& visible_id, std::optional<double> clock); // true when the job is done
  void finish_timing(Job& job, const std::string& visible_id, const std::string& stop_reason, const std::string& detail);
};

} // namespace nestor::profiler::detail
