// The runner's timing loop: builds overlap with timing (a variant starts
// being timed as soon as it is built and the baseline's reference outputs
// exist), variants are timed in interleaved rounds (one run each per round,
// so drift on the machine does not favour the order), and racing stops the
// ones that can no longer win (race.h). Per sample the loop only runs the
// program: no rebuild, no copy, no output check after the first warm-up run,
// and the SM clock is read once per round, not once per sample.
#include "runner_internal.h"

#include "nestor/profiler/process.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

namespace nestor::profiler::detail {

void PlanRunner::build_and_time() {
  std::vector<Job*> to_build;
  Job& baseline = baseline_job();
  to_build.push_back(&baseline); // first: nothing can be checked before its reference outputs exist
  for (auto& job : jobs_)
    if (&job != &baseline && !job.cached) to_build.push_back(&job);
  builds_left_ = to_build.size();
  bool baseline_built_or_failed = false;

  unsigned build_workers = options_.build_jobs ? options_.build_jobs : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  std::vector<std::thread> builders;
  for (unsigned w = 0; w < std::min<size_t>(build_workers, to_build.size()); ++w)
    builders.emplace_back([&] {
      for (size_t i; (i = next++) < to_build.size();) {
        Job& job = *to_build[i];
        if (!interrupt_requested()) build(job);
        std::lock_guard lock(schedule_mutex_);
        --builds_left_;
        if (&job == &baseline) baseline_built_or_failed = true;
        else if (job.built) ready_.push_back(&job);
        schedule_cv_.notify_all();
      }
    });

  std::vector<std::thread> gpus;
  for (size_t g = 0; g < devices_.gpus.size(); ++g)
    gpus.emplace_back([&, g] {
      if (g == 0) {
        {
          std::unique_lock lock(schedule_mutex_);
          schedule_cv_.wait(lock, [&] { return baseline_built_or_failed; });
        }
        if (!interrupt_requested()) check_baseline(baseline);
        std::lock_guard lock(schedule_mutex_);
        baseline_done_ = true;
        if (baseline_checked_ && !baseline.cached && baseline.reported) ready_.push_front(&baseline);
        schedule_cv_.notify_all();
      }
      gpu_worker(g);
    });
  for (auto& t : builders) t.join();
  {
    std::lock_guard lock(schedule_mutex_);
    schedule_cv_.notify_all();
  }
  for (auto& t : gpus) t.join();
}

void PlanRunner::gpu_worker(size_t worker) {
  {
    std::unique_lock lock(schedule_mutex_);
    schedule_cv_.wait(lock, [&] { return baseline_done_; });
  }
  if (!baseline_checked_) return; // check_baseline marked every variant not_run
  const std::string& visible_id = devices_.visible_ids[worker];
  const size_t workers = devices_.gpus.size();
  std::vector<Job*> mine;
  for (;;) {
    if (interrupt_requested()) return;
    {
      std::unique_lock lock(schedule_mutex_);
      // Newly built variants join this worker's rounds; with several GPUs
      // each worker takes its share of what is waiting.
      size_t take = ready_.empty() ? 0 : std::max<size_t>(1, ready_.size() / workers);
      for (; take > 0 && !ready_.empty(); --take) {
        Job* job = ready_.front();
        ready_.pop_front();
        job->result.device = devices_.gpus[worker].index;
        mine.push_back(job);
      }
      if (mine.empty()) {
        if (builds_left_ == 0 && ready_.empty()) return;
        schedule_cv_.wait_for(lock, std::chrono::milliseconds(200));
        continue;
      }
    }
    std::optional<double> clock = devices_.assumed ? std::nullopt : query_sm_clock_mhz(visible_id);
    std::erase_if(mine, [&](Job* job) { return step(*job, visible_id, clock); });
    std::vector<Elimination> eliminated;
    {
      std::lock_guard lock(race_mutex_);
      eliminated = race_.eliminate();
      // A job another worker times stops at its next turn.
      for (auto& e : eliminated) by_id_.at(e.id)->eliminated = e.reason;
    }
    for (auto& e : eliminated) progress("[race] " + e.id + ": " + e.reason);
  }
}

bool PlanRunner::step(Job& job, const std::string& visible_id, std::optional<double> clock) {
  if (!job.checked) {
    // Warm-up runs; the first one is also the correctness check.
    for (size_t w = 0; w < plan_.warmup_runs; ++w) {
      if (job.spec->baseline && w == 0) continue; // done in check_baseline
      RunOutcome warm = run_once(job, visible_id, "warmup-" + std::to_string(w));
      if (warm.interrupted) return true;
      if (!warm.ok) {
        fail(job, warm.status, warm.reason, warm.log_tail);
        record(job);
        return true;
      }
      if (w == 0) {
        if (std::string problem = check_outputs(job); !problem.empty()) {
          fail(job, VariantStatus::OutputMismatch, problem, job.result.log_tail);
          record(job);
          return true;
        }
        job.correctness_ms = warm.sample_ms;
        if (warm.cupti) job.activity_kind = warm.cupti->activity_kind;
      }
    }
    job.checked = true;
    std::optional<std::string> screened_out;
    {
      std::lock_guard lock(race_mutex_);
      race_.enter(job.spec->id, job.spec->baseline);
      if (job.correctness_ms) screened_out = race_.screen(job.spec->id, *job.correctness_ms);
    }
    if (screened_out) {
      // Reported with its one observation: the correctness run, a whole run timed like every sample.
      job.samples = {*job.correctness_ms};
      job.clocks = {clock};
      finish_timing(job, visible_id, "eliminated", *screened_out);
      progress("[race] " + job.spec->id + ": " + *screened_out);
      return true;
    }
    return false;
  }
  std::string eliminated;
  {
    std::lock_guard lock(race_mutex_);
    eliminated = job.eliminated;
  }
  if (!eliminated.empty()) {
    finish_timing(job, visible_id, "eliminated", eliminated);
    return true;
  }
  RunOutcome r = run_once(job, visible_id, "sample-" + std::to_string(job.samples.size()));
  if (r.interrupted) return true;
  if (!r.ok) {
    fail(job, r.status, "timed run " + std::to_string(job.samples.size() + 1) + ": " + r.reason, r.log_tail);
    {
      std::lock_guard lock(race_mutex_);
      race_.withdraw(job.spec->id);
    }
    record(job);
    return true;
  }
  if (r.cupti) job.activity_kind = r.cupti->activity_kind;
  job.samples.push_back(r.sample_ms);
  job.clocks.push_back(clock);
  job.timed_s += r.wall_s;
  {
    std::lock_guard lock(race_mutex_);
    race_.add_sample(job.spec->id, r.sample_ms);
  }
  StopReason stop = should_stop(job.samples, job.timed_s, plan_.stopping);
  if (stop == StopReason::KeepGoing) return false;
  {
    std::lock_guard lock(race_mutex_);
    race_.finish(job.spec->id);
  }
  finish_timing(job, visible_id, to_string(stop), "");
  return true;
}

void PlanRunner::finish_timing(Job& job, const std::string& visible_id, const std::string& stop_reason,
                               const std::string& detail) {
  Timing timing = timing_from_samples(job.samples, stop_reason);
  timing.source = plan_.timing_mode == TimingMode::Cupti ? "kernel_sum" : "wall_clock";
  timing.activity_kind = job.activity_kind;
  timing.warmup_runs = plan_.warmup_runs;
  timing.sm_clock_mhz = job.clocks;
  timing.stop_detail = detail;
  job.result.timing = timing;
  job.result.status = VariantStatus::Ok;
  job.result.reason.clear();
  job.result.log_tail.clear();
  job.finished = true;
  char line[400];
  std::snprintf(line, sizeof line, "[time] %s: median %.4f ms, IQR %.4f-%.4f, %zu samples (%s)", job.spec->id.c_str(),
                timing.median, timing.q1, timing.q3, timing.samples.size(), stop_reason.c_str());
  progress(line);

  // Metrics come from a separate run (kernel replay would distort the
  // timings), and only for variants still in the race.
  if (!plan_.metrics.empty() && plan_.timing_mode == TimingMode::Cupti && detail.empty()) {
    RunOutcome m = run_once(job, visible_id, "metrics", /*metrics_run=*/true);
    if (!m.ok) job.result.metrics_error = "metrics run failed: " + m.reason;
    else if (m.cupti) {
      job.result.metrics = m.cupti->metrics;
      job.result.metrics_error = m.cupti->metrics_error;
      if (m.cupti->metrics.is_null() && !m.cupti->metrics_error) job.result.metrics_error = "the injection library returned no metrics";
    }
  }
  record(job);
}

} // namespace nestor::profiler::detail
