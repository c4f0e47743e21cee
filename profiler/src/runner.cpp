#include "nestor/profiler/runner.h"

#include "nestor/profiler/cache.h"
#include "nestor/profiler/devices.h"
#include "nestor/profiler/output_check.h"
#include "nestor/profiler/process.h"
#include "nestor/profiler/recommend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

namespace nestor::profiler {
namespace fs = std::filesystem;
using nlohmann::json;

CuptiRunSummary summarize_cupti_output(const json& document) {
  if (!document.is_object() || document.value("tool", "") != "nestor_cupti")
    throw std::runtime_error("not a libnestor_cupti output (field tool != \"nestor_cupti\")");
  CuptiRunSummary summary;
  summary.activity_kind = document.value("activity_kind", "");
  auto kernels = document.find("kernels");
  if (kernels == document.end() || !kernels->is_array()) throw std::runtime_error("libnestor_cupti output has no kernels array");
  uint64_t total_ns = 0;
  for (auto& kernel : *kernels) {
    uint64_t start = kernel.at("start_ns").get<uint64_t>(), end = kernel.at("end_ns").get<uint64_t>();
    if (end > start) total_ns += end - start;
    ++summary.kernel_count;
  }
  summary.kernel_time_ms = static_cast<double>(total_ns) / 1e6;
  if (auto m = document.find("metrics"); m != document.end() && m->is_object()) summary.metrics = *m;
  if (auto e = document.find("metrics_error"); e != document.end() && e->is_string()) summary.metrics_error = e->get<std::string>();
  return summary;
}

fs::path default_cupti_library() {
  if (const char* env = std::getenv("NESTOR_CUPTI_LIB"); env && *env) return env;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("libnestor_cupti.so") : self.parent_path() / "libnestor_cupti.so";
}

namespace {

std::string now_iso8601() {
  std::time_t t = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buffer;
}

std::string hostname() {
  char name[256] = "";
  gethostname(name, sizeof name - 1);
  return name;
}

// Everything the runner knows about one variant while it executes.
struct Job {
  const VariantSpec* spec = nullptr;
  fs::path workdir;  // scratch copy of the project
  fs::path logdir;   // logs and CUPTI files, outside the copy
  fs::path exe;
  std::string build_command, run_command;
  std::string cache_key;
  bool cached = false;
  bool built = false;
  VariantResult result;
};

class PlanRunner {
public:
  PlanRunner(const Plan& plan, const RunnerOptions& options) : plan_(plan), options_(options) {}

  Results run() {
    DeviceInventory devices = detect_devices();
    if (devices.gpus.empty()) throw NoDeviceError("no CUDA device available: " + devices.why_none);
    if (devices.assumed && plan_.timing_mode == TimingMode::Cupti)
      throw PlanError("NESTOR_RUNNER_ASSUME_DEVICES is a test seam for runner logic and only allows "
                      "\"timing\": {\"mode\": \"wall_clock\"}; CUPTI timing needs a real device");
    for (const std::string& line : keep_one_model(devices)) progress("[devices] " + line);
    devices_ = devices;
    if (plan_.timing_mode == TimingMode::Cupti) {
      cupti_library_ = options_.cupti_library.value_or(default_cupti_library());
      if (!fs::is_regular_file(cupti_library_))
        throw std::runtime_error("CUPTI timing needs the injection library, not found at '" + cupti_library_.string() +
                                 "' (pass --cupti-lib or set NESTOR_CUPTI_LIB)");
      cupti_library_ = fs::absolute(cupti_library_);
    }

    prepare_scratch();
    compute_cache_keys();

    bool all_cached = true;
    for (auto& job : jobs_) all_cached &= job.cached;
    if (!all_cached) {
      build_all();
      Job& baseline = baseline_job();
      check_baseline(baseline);
      execute_on_gpus();
    }

    Results results;
    results.plan = fs::absolute(plan_.path).string();
    results.generated_at = now_iso8601();
    results.timing_mode = plan_.timing_mode == TimingMode::Cupti ? "cupti" : "wall_clock";
    results.environment.gpus = devices_.gpus;
    results.environment.driver_version = devices_.driver_version;
    results.environment.cuda_driver_api_version = devices_.cuda_driver_api_version;
    results.environment.devices_assumed = devices_.assumed;
    results.environment.hostname = hostname();
    for (auto& job : jobs_) {
      job.result.cache_key = job.cache_key;
      if (!job.cached && job.result.status != VariantStatus::NotRun && cache_) cache_->append(job.cache_key, job.result);
      results.variants.push_back(job.result);
    }
    results.recommendation = recommend(results.variants);
    if (!options_.keep_scratch && owns_scratch_) {
      std::error_code ec;
      fs::remove_all(scratch_, ec);
    }
    return results;
  }

private:
  const Plan& plan_;
  const RunnerOptions& options_;
  DeviceInventory devices_;
  fs::path cupti_library_;
  fs::path scratch_;
  bool owns_scratch_ = false;
  fs::path reference_dir_;
  std::deque<Job> jobs_;
  std::optional<ResultCache> cache_;
  std::mutex progress_mutex_;

  void progress(const std::string& line) {
    if (!options_.progress) return;
    std::lock_guard lock(progress_mutex_);
    options_.progress(line);
  }

  Job& baseline_job() {
    for (auto& job : jobs_)
      if (job.spec->baseline) return job;
    throw PlanError("plan has no baseline variant");
  }

  void prepare_scratch() {
    if (plan_.scratch_dir) {
      scratch_ = *plan_.scratch_dir;
      fs::create_directories(scratch_);
    } else {
      std::string pattern = (fs::temp_directory_path() / "nestor-runner-XXXXXX").string();
      if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a scratch directory in " + fs::temp_directory_path().string());
      scratch_ = pattern;
      owns_scratch_ = true;
    }
    {
      // A scratch root inside the project would be copied into itself.
      fs::path project = fs::weakly_canonical(plan_.project_dir), scratch = fs::weakly_canonical(scratch_);
      auto mismatch = std::mismatch(project.begin(), project.end(), scratch.begin(), scratch.end());
      if (mismatch.first == project.end())
        throw PlanError("plan.scratch_dir '" + scratch_.string() + "' must not be inside project_dir");
    }
    reference_dir_ = scratch_ / "baseline-reference";
    fs::remove_all(reference_dir_);
    fs::create_directories(reference_dir_);
    for (const VariantSpec& spec : plan_.variants) {
      Job& job = jobs_.emplace_back();
      job.spec = &spec;
      job.workdir = scratch_ / spec.id / "project";
      job.logdir = scratch_ / spec.id / "logs";
      fs::remove_all(scratch_ / spec.id);
      fs::create_directories(job.logdir);
      // Each variant gets its own copy; the user's project is only read.
      fs::copy(plan_.project_dir, job.workdir, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
      for (auto& [target, from] : spec.files) {
        fs::create_directories((job.workdir / target).parent_path());
        fs::copy_file(from, job.workdir / target, fs::copy_options::overwrite_existing);
      }
      job.exe = job.logdir.parent_path() / "nestor-variant.exe";
      std::map<std::string, std::string> build_values = {
          {"source", shell_quote((job.workdir / spec.source).string())},
          {"exe", shell_quote(job.exe.string())},
          {"defines", defines_to_flags(spec.defines)},
          {"flags", spec.flags},
          {"workdir", shell_quote(job.workdir.string())},
      };
      job.build_command = expand_template(plan_.build_command, build_values, "plan.build.command");
      job.run_command = expand_template(plan_.run_command, {{"exe", shell_quote(job.exe.string())}, {"workdir", shell_quote(job.workdir.string())}},
                                        "plan.run.command");
      job.result.id = spec.id;
      job.result.baseline = spec.baseline;
      job.result.description = spec.description;
      job.result.params = spec.params;
    }
  }

  void compute_cache_keys() {
    fs::path cache_path = options_.cache_path.value_or(fs::absolute(plan_.path).parent_path() / ".nestor-runner-cache.jsonl");
    cache_.emplace(cache_path);
    if (cache_->skipped_lines())
      progress("cache: skipped " + std::to_string(cache_->skipped_lines()) + " unreadable line(s) in " + cache_path.string());
    std::set<std::string> gpu_names;
    for (auto& g : devices_.gpus) gpu_names.insert(g.name);
    std::string gpus;
    for (auto& n : gpu_names) gpus += (gpus.empty() ? "" : ";") + n;
    json check = {{"outputs", plan_.check.outputs}, {"format", plan_.check.format}, {"abs", plan_.check.abs_tolerance},
                  {"rel", plan_.check.rel_tolerance}, {"command", plan_.check.command.value_or("")}};
    json timing = {{"mode", plan_.timing_mode == TimingMode::Cupti ? "cupti" : "wall_clock"},
                   {"serialize", plan_.serialize_kernels}, {"warmup", plan_.warmup_runs},
                   {"min", plan_.stopping.min_samples}, {"max", plan_.stopping.max_samples},
                   {"noise", plan_.stopping.noise_target}, {"limit", plan_.stopping.time_limit_s},
                   {"metrics", plan_.metrics}, {"env", plan_.run_env}};
    std::map<std::string, std::string> hashes;
    for (auto& job : jobs_) hashes[job.spec->id] = hash_tree(job.workdir);
    std::string baseline_hash = hashes[plan_.baseline().id];
    for (auto& job : jobs_) {
      CacheKeyInputs in;
      in.source_hash = hashes[job.spec->id];
      in.baseline_source_hash = baseline_hash;
      in.variant_id = job.spec->id;
      in.params = job.spec->params;
      in.flags = defines_to_flags(job.spec->defines) + " | " + job.spec->flags;
      // The expanded commands contain scratch paths; key on the templates instead.
      in.build_command = plan_.build_command;
      in.run_command = plan_.run_command;
      in.check = check.dump();
      in.timing = timing.dump();
      in.gpu = gpus;
      in.driver_version = devices_.driver_version.value_or("unknown");
      in.cuda_version = devices_.cuda_driver_api_version ? std::to_string(*devices_.cuda_driver_api_version) : "unknown";
      job.cache_key = cache_key(in);
      if (options_.fresh) continue;
      if (auto hit = cache_->find(job.cache_key)) {
        job.result = *hit;
        job.result.from_cache = true;
        job.cached = true;
        progress("[cache] " + job.spec->id + ": " + to_string(hit->status) + " (from " + cache_path.filename().string() + ")");
      }
    }
  }

  void build_all() {
    std::vector<Job*> to_build;
    for (auto& job : jobs_)
      if (!job.cached || job.spec->baseline) to_build.push_back(&job); // the baseline's outputs are the reference
    unsigned jobs = options_.build_jobs ? options_.build_jobs : std::max(1u, std::thread::hardware_concurrency());
    std::atomic<size_t> next{0};
    std::vector<std::thread> workers;
    for (unsigned w = 0; w < std::min<size_t>(jobs, to_build.size()); ++w)
      workers.emplace_back([&] {
        for (size_t i; (i = next++) < to_build.size();) build(*to_build[i]);
      });
    for (auto& t : workers) t.join();
  }

  void build(Job& job) {
    ProcessSpec spec{job.build_command, job.workdir, {}, job.logdir / "build.out", job.logdir / "build.err", plan_.build_timeout_s};
    ProcessResult r = run_process(spec);
    if (r.ok()) {
      job.built = true;
      progress("[build] " + job.spec->id + ": ok (" + std::to_string(static_cast<int>(r.wall_seconds * 1000)) + " ms)");
      return;
    }
    if (job.cached) return; // a cached baseline keeps its cached result; check_baseline reports the build problem
    job.result.status = VariantStatus::BuildFailed;
    job.result.reason = "build " + r.describe();
    job.result.log_tail = tail_lines(read_file(spec.stderr_path) + read_file(spec.stdout_path));
    progress("[build] " + job.spec->id + ": FAILED (" + r.describe() + ")");
  }

  struct RunOutcome {
    bool ok = false;
    VariantStatus status = VariantStatus::Ok;
    std::string reason, log_tail;
    double sample_ms = 0;
    std::optional<CuptiRunSummary> cupti;
  };

  RunOutcome run_once(Job& job, const std::string& visible_id, const std::string& tag, bool metrics_run = false) {
    std::map<std::string, std::string> env = plan_.run_env;
    env["CUDA_VISIBLE_DEVICES"] = visible_id;
    fs::path cupti_out = job.logdir / ("cupti-" + tag + ".json");
    if (plan_.timing_mode == TimingMode::Cupti) {
      fs::remove(cupti_out);
      env["CUDA_INJECTION64_PATH"] = cupti_library_.string();
      env["NESTOR_CUPTI_OUT"] = cupti_out.string();
      env["NESTOR_CUPTI_SERIALIZE"] = plan_.serialize_kernels ? "1" : "0";
      if (metrics_run) {
        std::string list;
        for (auto& m : plan_.metrics) list += (list.empty() ? "" : ",") + m;
        env["NESTOR_CUPTI_METRICS"] = list;
      }
    }
    ProcessSpec spec{job.run_command, job.workdir, env, job.logdir / ("run-" + tag + ".out"), job.logdir / ("run-" + tag + ".err"),
                     plan_.run_timeout_s};
    ProcessResult r = run_process(spec);
    RunOutcome out;
    std::string output = read_file(spec.stdout_path) + read_file(spec.stderr_path);
    out.log_tail = tail_lines(output);
    std::string cuda_line;
    bool cuda_error = contains_cuda_error(output, &cuda_line);
    if (!r.started) {
      out.status = VariantStatus::NonzeroExit;
      out.reason = "run " + r.describe();
    } else if (r.timed_out) {
      out.status = VariantStatus::Timeout;
      out.reason = "run timed out after " + std::to_string(plan_.run_timeout_s) + " s (process group killed)";
    } else if (r.signal) {
      out.status = VariantStatus::Crashed;
      out.reason = "run " + r.describe();
    } else if (cuda_error) {
      out.status = VariantStatus::CudaError;
      out.reason = "CUDA error reported: " + cuda_line.substr(0, 200);
    } else if (r.exit_code && *r.exit_code > 128 && *r.exit_code <= 128 + 64) {
      out.status = VariantStatus::Crashed; // the shell reports a signal as 128 + N
      out.reason = "run " + r.describe() + " (signal " + std::to_string(*r.exit_code - 128) + " as reported by the shell)";
    } else if (r.exit_code != 0) {
      out.status = VariantStatus::NonzeroExit;
      out.reason = "run " + r.describe();
    } else {
      out.ok = true;
    }
    if (!out.ok) return out;
    if (plan_.timing_mode == TimingMode::WallClock) {
      out.sample_ms = r.wall_seconds * 1000;
      return out;
    }
    try {
      std::ifstream in(cupti_out);
      if (!in) throw std::runtime_error("the injection library wrote no " + cupti_out.filename().string() +
                                        " (not loaded? a static CUDA runtime still loads it; check CUDA_INJECTION64_PATH)");
      out.cupti = summarize_cupti_output(json::parse(in));
      if (out.cupti->kernel_count == 0 && !metrics_run) throw std::runtime_error("the injection library recorded no kernel");
      out.sample_ms = out.cupti->kernel_time_ms;
    } catch (const std::exception& e) {
      out.ok = false;
      out.status = VariantStatus::NoTimingData;
      out.reason = e.what();
    }
    return out;
  }

  // Compares this run's outputs (the files in the plan, or the check command)
  // with the baseline reference. Returns an empty string when they match.
  std::string check_outputs(Job& job) {
    for (auto& name : plan_.check.outputs) {
      fs::path candidate = name == "<stdout>" ? job.logdir / "run-warmup-0.out" : job.workdir / name;
      fs::path reference = reference_dir_ / (name == "<stdout>" ? "stdout.txt" : name);
      if (!fs::exists(candidate)) return "output '" + name + "' was not written";
      CompareResult c = compare_outputs(read_file(reference), read_file(candidate), plan_.check.format,
                                        plan_.check.abs_tolerance, plan_.check.rel_tolerance);
      if (!c.equal) return "output '" + name + "' differs from the baseline: " + c.difference;
    }
    if (plan_.check.command) {
      std::string command = expand_template(*plan_.check.command,
                                            {{"workdir", shell_quote(job.workdir.string())},
                                             {"baseline_workdir", shell_quote(reference_dir_.string())},
                                             {"exe", shell_quote(job.exe.string())}},
                                            "plan.check.command");
      ProcessSpec spec{command, job.workdir, {}, job.logdir / "check.out", job.logdir / "check.err", plan_.run_timeout_s};
      ProcessResult r = run_process(spec);
      if (!r.ok()) {
        job.result.log_tail = tail_lines(read_file(spec.stdout_path) + read_file(spec.stderr_path));
        return "check command failed (" + r.describe() + ")";
      }
    }
    return "";
  }

  void fail(Job& job, VariantStatus status, const std::string& reason, const std::string& log_tail) {
    job.result.status = status;
    job.result.reason = reason;
    job.result.log_tail = log_tail;
    job.result.timing.reset();
    progress("[run] " + job.spec->id + ": " + to_string(status) + ": " + reason);
  }

  // Runs the baseline once to produce the reference outputs every variant is checked against.
  void check_baseline(Job& baseline) {
    auto fail_everything = [&](const std::string& why) {
      for (auto& job : jobs_)
        if (!job.spec->baseline && !job.cached && job.result.status != VariantStatus::BuildFailed) {
          job.result.status = VariantStatus::NotRun;
          job.result.reason = why;
        }
    };
    if (!baseline.built) {
      if (baseline.cached) {
        baseline.result.status = VariantStatus::BuildFailed;
        baseline.result.reason = "the baseline no longer builds (cached result discarded)";
        baseline.cached = false;
      }
      fail_everything("the baseline failed to build, so outputs cannot be checked");
      return;
    }
    RunOutcome warm = run_once(baseline, devices_.visible_ids[0], "warmup-0");
    if (!warm.ok) {
      fail(baseline, warm.status, warm.reason, warm.log_tail);
      baseline.cached = false;
      fail_everything("the baseline run failed (" + std::string(to_string(warm.status)) + "), so outputs cannot be checked");
      return;
    }
    for (auto& name : plan_.check.outputs) {
      fs::path from = name == "<stdout>" ? baseline.logdir / "run-warmup-0.out" : baseline.workdir / name;
      fs::path to = reference_dir_ / (name == "<stdout>" ? "stdout.txt" : name);
      if (!fs::exists(from)) {
        fail(baseline, VariantStatus::OutputMismatch, "the baseline did not write output '" + name + "'", warm.log_tail);
        baseline.cached = false;
        fail_everything("the baseline did not write its outputs");
        return;
      }
      fs::create_directories(to.parent_path());
      fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    }
    if (std::string problem = check_outputs(baseline); !problem.empty()) {
      fail(baseline, VariantStatus::OutputMismatch, "check fails on the baseline itself: " + problem, baseline.result.log_tail);
      baseline.cached = false;
      fail_everything("the check fails on the baseline itself");
      return;
    }
    baseline_checked_ = true;
    progress("[check] baseline '" + baseline.spec->id + "': reference outputs recorded");
  }
  bool baseline_checked_ = false;

  void measure(Job& job, const std::string& visible_id, int device_index) {
    job.result.device = device_index;
    // Warm-up runs; the first one is also the correctness check.
    for (size_t w = 0; w < plan_.warmup_runs; ++w) {
      if (job.spec->baseline && w == 0) continue; // done in check_baseline
      RunOutcome warm = run_once(job, visible_id, "warmup-" + std::to_string(w));
      if (!warm.ok) return fail(job, warm.status, warm.reason, warm.log_tail);
      if (w == 0)
        if (std::string problem = check_outputs(job); !problem.empty())
          return fail(job, VariantStatus::OutputMismatch, problem, job.result.log_tail);
    }
    Timing timing;
    timing.source = plan_.timing_mode == TimingMode::Cupti ? "kernel_sum" : "wall_clock";
    timing.warmup_runs = plan_.warmup_runs;
    auto start = std::chrono::steady_clock::now();
    StopReason stop = StopReason::KeepGoing;
    while (stop == StopReason::KeepGoing) {
      RunOutcome r = run_once(job, visible_id, "sample-" + std::to_string(timing.samples.size()));
      if (!r.ok) return fail(job, r.status, "timed run " + std::to_string(timing.samples.size() + 1) + ": " + r.reason, r.log_tail);
      if (r.cupti) timing.activity_kind = r.cupti->activity_kind;
      timing.samples.push_back(r.sample_ms);
      timing.sm_clock_mhz.push_back(devices_.assumed ? std::nullopt : query_sm_clock_mhz(visible_id));
      stop = should_stop(timing.samples, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), plan_.stopping);
    }
    SampleSummary s = summarize(timing.samples);
    timing.median = s.median;
    timing.q1 = s.q1;
    timing.q3 = s.q3;
    timing.min = s.min;
    timing.max = s.max;
    timing.mean = s.mean;
    timing.stdev = s.stdev;
    timing.relative_median_error = std::isfinite(s.relative_median_error) ? s.relative_median_error : -1;
    timing.stop_reason = to_string(stop);
    job.result.timing = timing;
    job.result.status = VariantStatus::Ok;
    job.result.reason.clear();
    job.result.log_tail.clear();
    char line[200];
    std::snprintf(line, sizeof line, "[time] %s: median %.4f ms, IQR %.4f-%.4f, %zu samples (%s)", job.spec->id.c_str(), s.median,
                  s.q1, s.q3, s.count, to_string(stop));
    progress(line);

    if (!plan_.metrics.empty() && plan_.timing_mode == TimingMode::Cupti) {
      // Metrics come from a separate run: kernel replay would distort the timings.
      RunOutcome m = run_once(job, visible_id, "metrics", /*metrics_run=*/true);
      if (!m.ok) job.result.metrics_error = "metrics run failed: " + m.reason;
      else if (m.cupti) {
        job.result.metrics = m.cupti->metrics;
        job.result.metrics_error = m.cupti->metrics_error;
        if (m.cupti->metrics.is_null() && !m.cupti->metrics_error) job.result.metrics_error = "the injection library returned no metrics";
      }
    }
  }

  void execute_on_gpus() {
    std::deque<Job*> queue;
    for (auto& job : jobs_)
      if (!job.cached && job.built && baseline_checked_) queue.push_back(&job);
    std::mutex queue_mutex;
    std::vector<std::thread> workers;
    for (size_t g = 0; g < devices_.gpus.size(); ++g)
      workers.emplace_back([&, g] {
        for (;;) {
          Job* job = nullptr;
          {
            std::lock_guard lock(queue_mutex);
            if (queue.empty()) return;
            job = queue.front();
            queue.pop_front();
          }
          measure(*job, devices_.visible_ids[g], devices_.gpus[g].index);
        }
      });
    for (auto& t : workers) t.join();
  }
};

} // namespace

Results run_plan(const Plan& plan, const RunnerOptions& options) { return PlanRunner(plan, options).run(); }

} // namespace nestor::profiler
