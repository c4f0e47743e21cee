#include "nestor/profiler/runner.h"

#include "runner_internal.h"

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

namespace detail {
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

// Written next to a variant's copy by a build-only run (Slurm coordinator):
// the executable is there, and the copy's hash before the build.
constexpr const char* kBuiltMarker = "built.ok";
constexpr const char* kSourceHashFile = "source.sha256";

} // namespace

void PlanRunner::progress(const std::string& line) {
  if (!options_.progress) return;
  std::lock_guard lock(progress_mutex_);
  options_.progress(line);
}

Job& PlanRunner::baseline_job() {
  for (auto& job : jobs_)
    if (job.spec->baseline) return job;
  throw PlanError("plan has no baseline variant");
}

bool PlanRunner::selected(const VariantSpec& spec) const {
  if (!options_.only_variants) return true;
  return std::find(options_.only_variants->begin(), options_.only_variants->end(), spec.id) != options_.only_variants->end();
}

Results PlanRunner::run() {
  if (options_.only_variants && options_.worker_tag.empty())
    throw std::invalid_argument("RunnerOptions::only_variants needs a worker_tag");
  if (options_.only_variants)
    for (auto& id : *options_.only_variants) {
      bool known = false;
      for (auto& v : plan_.variants) known |= v.id == id;
      if (!known) throw PlanError("variant '" + id + "' to run is not in the plan");
    }
  if (options_.build_only) {
    // Builds need no device: the Slurm coordinator builds on the login node.
    prepare_scratch();
    build_all_only();
    return collect();
  }
  DeviceInventory devices = detect_devices();
  if (devices.gpus.empty()) throw NoDeviceError("no CUDA device available: " + devices.why_none);
  if (devices.assumed && plan_.timing_mode == TimingMode::Cupti)
    throw PlanError("NESTOR_RUNNER_ASSUME_DEVICES is a test seam for runner logic and only allows "
                    "\"timing\": {\"mode\": \"wall_clock\"}; CUPTI timing needs a real device");
  if (const char* reported = std::getenv("NESTOR_RUNNER_REPORTED_MS"); reported && *reported) {
    if (!devices.assumed)
      throw PlanError("NESTOR_RUNNER_REPORTED_MS is a test seam for runner logic and needs NESTOR_RUNNER_ASSUME_DEVICES: "
                      "on a device, samples are measured");
    reported_ms_file_ = reported;
  }
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
  for (auto& job : jobs_) all_cached &= job.cached || !job.reported;
  if (!all_cached) build_and_time();

  for (auto& job : jobs_) {
    // A variant an interrupt caught mid-way (in interleaved rounds, most of
    // them): its samples so far are reported, marked as such, but not
    // cached, so a rerun measures it again.
    if (job.cached || job.finished || job.result.status != VariantStatus::NotRun || !job.result.reason.empty()) continue;
    std::string why = "interrupted after " + std::to_string(job.samples.size()) + " timed run(s); not cached, a rerun measures it again";
    if (!interrupt_requested()) job.result.reason = "not timed";
    else if (job.samples.empty()) job.result.reason = why;
    else {
      job.result.status = VariantStatus::Ok;
      job.result.timing = timing_from_samples(job.samples, "interrupted");
      job.result.timing->source = plan_.timing_mode == TimingMode::Cupti ? "kernel_sum" : "wall_clock";
      job.result.timing->activity_kind = job.activity_kind;
      job.result.timing->warmup_runs = plan_.warmup_runs;
      job.result.timing->sm_clock_mhz = job.clocks;
      job.result.timing->stop_detail = why;
      job.recorded = true; // never cached
    }
  }
  return collect();
}

Results PlanRunner::collect() {
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
    if (!job.reported) continue;
    job.result.cache_key = job.cache_key;
    record(job);
    results.variants.push_back(job.result);
  }
  results.recommendation = recommend(results.variants);
  if (!options_.keep_scratch && owns_scratch_) {
    std::error_code ec;
    fs::remove_all(scratch_, ec);
  }
  return results;
}

void PlanRunner::record(Job& job) {
  if (job.cached || job.recorded || !cache_ || job.cache_key.empty() || !job.reported) return;
  if (job.result.status == VariantStatus::NotRun) return;
  job.result.cache_key = job.cache_key;
  cache_->append(job.cache_key, job.result);
  job.recorded = true;
}

void PlanRunner::prepare_scratch() {
  if (auto dir = options_.scratch_dir ? options_.scratch_dir : plan_.scratch_dir) {
    scratch_ = *dir;
    fs::create_directories(scratch_);
  } else {
    if (options_.reuse_builds) throw std::invalid_argument("reusing builds needs the scratch directory that holds them");
    std::string pattern = (fs::temp_directory_path() / "nestor-runner-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a scratch directory in " + fs::temp_directory_path().string());
    scratch_ = pattern;
    owns_scratch_ = !options_.build_only;
  }
  {
    // A scratch root inside the project would be copied into itself.
    fs::path project = fs::weakly_canonical(plan_.project_dir), scratch = fs::weakly_canonical(scratch_);
    auto mismatch = std::mismatch(project.begin(), project.end(), scratch.begin(), scratch.end());
    if (mismatch.first == project.end())
      throw PlanError("plan.scratch_dir '" + scratch_.string() + "' must not be inside project_dir");
  }
  // A worker of a split run has its own reference and baseline copy, so
  // that workers sharing the scratch root never write the same files.
  const std::string tag = options_.worker_tag;
  reference_dir_ = scratch_ / (tag.empty() ? std::string("baseline-reference") : "baseline-reference-" + tag);
  if (!options_.build_only) {
    fs::remove_all(reference_dir_);
    fs::create_directories(reference_dir_);
  }
  for (const VariantSpec& spec : plan_.variants) {
    bool wanted = selected(spec);
    if (!wanted && !spec.baseline) continue;
    Job& job = jobs_.emplace_back();
    job.spec = &spec;
    job.reported = wanted;
    fs::path home = scratch_ / spec.id;
    job.exe = home / "nestor-variant.exe";
    job.workdir = home / "project";
    job.logdir = home / "logs";
    if (options_.reuse_builds) {
      job.built = fs::exists(home / kBuiltMarker);
      if (!wanted) {
        // The baseline, run only for this worker's reference outputs.
        fs::path own = scratch_ / tag / spec.id;
        fs::remove_all(own);
        fs::create_directories(own / "logs");
        if (job.built) fs::copy(job.workdir, own / "project", fs::copy_options::recursive | fs::copy_options::copy_symlinks);
        job.workdir = own / "project";
        job.logdir = own / "logs";
      }
    } else {
      fs::remove_all(home);
      fs::create_directories(job.logdir);
      // Each variant gets its own copy; the user's project is only read.
      fs::copy(plan_.project_dir, job.workdir, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
      for (auto& [target, from] : spec.files) {
        fs::create_directories((job.workdir / target).parent_path());
        fs::copy_file(from, job.workdir / target, fs::copy_options::overwrite_existing);
      }
    }
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
  for (auto& job : jobs_) by_id_[job.spec->id] = &job;
}

void PlanRunner::compute_cache_keys() {
  fs::path cache_path = options_.cache_path.value_or(fs::absolute(plan_.path).parent_path() / ".nestor-runner-cache.jsonl");
  cache_.emplace(cache_path);
  if (cache_->skipped_lines())
    progress("cache: skipped " + std::to_string(cache_->skipped_lines()) + " unreadable line(s) in " + cache_path.string());
  for (auto& extra : options_.extra_caches)
    if (fs::exists(extra)) extra_caches_.emplace_back(extra);
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
  // Racing changes how many samples a loser gets, so raced and full results are kept apart.
  if (options_.race.enabled) timing["racing"] = {{"min", options_.race.min_samples}, {"margin", options_.race.margin}};
  std::map<std::string, std::string> hashes;
  for (auto& job : jobs_) {
    // Reused builds: the hash of the copy before it was built, as a local run computes it.
    std::string hash = options_.reuse_builds ? read_file(scratch_ / job.spec->id / kSourceHashFile) : "";
    hashes[job.spec->id] = hash.empty() ? hash_tree(job.workdir) : hash;
  }
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
    if (options_.fresh || !job.reported) continue;
    std::optional<VariantResult> hit = cache_->find(job.cache_key);
    for (auto& extra : extra_caches_)
      if (!hit) hit = extra.find(job.cache_key);
    if (hit) {
      job.result = *hit;
      job.result.from_cache = true;
      job.cached = true;
      progress("[cache] " + job.spec->id + ": " + to_string(hit->status) + " (from cache)");
      if (hit->status == VariantStatus::Ok && hit->timing) race_.enter_finished(job.spec->id, job.spec->baseline, hit->timing->samples);
    }
  }
}

void PlanRunner::build_all_only() {
  std::vector<Job*> to_build;
  for (auto& job : jobs_) to_build.push_back(&job);
  for (auto* job : to_build) {
    std::ofstream(job->workdir.parent_path() / kSourceHashFile) << hash_tree(job->workdir);
  }
  unsigned jobs = options_.build_jobs ? options_.build_jobs : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < std::min<size_t>(jobs, to_build.size()); ++w)
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < to_build.size();) {
        build(*to_build[i]);
        if (to_build[i]->built) std::ofstream(to_build[i]->workdir.parent_path() / kBuiltMarker) << "ok\n";
      }
    });
  for (auto& t : workers) t.join();
  for (auto& job : jobs_)
    if (job.built) job.result.reason = "built; not timed (build-only run)";
}

void PlanRunner::build(Job& job) {
  if (options_.reuse_builds) {
    // Built by the build-only run; one without a marker failed there and was reported by it.
    if (!job.built) {
      job.result.status = VariantStatus::BuildFailed;
      job.result.reason = "no executable from the build step (" + (scratch_ / job.spec->id / kBuiltMarker).string() + " is missing)";
    }
    return;
  }
  ProcessSpec spec{job.build_command, job.workdir, {}, job.logdir / "build.out", job.logdir / "build.err", plan_.build_timeout_s};
  ProcessResult r = run_process(spec);
  if (r.ok()) {
    job.built = true;
    progress("[build] " + job.spec->id + ": ok (" + std::to_string(static_cast<int>(r.wall_seconds * 1000)) + " ms)");
    return;
  }
  if (job.cached) return; // a cached baseline keeps its cached result; check_baseline reports the build problem
  if (r.interrupted) return; // reported as interrupted, not as a build failure
  job.result.status = VariantStatus::BuildFailed;
  job.result.reason = "build " + r.describe();
  job.result.log_tail = tail_lines(read_file(spec.stderr_path) + read_file(spec.stdout_path));
  progress("[build] " + job.spec->id + ": FAILED (" + r.describe() + ")");
}

RunOutcome PlanRunner::run_once(Job& job, const std::string& visible_id, const std::string& tag, bool metrics_run) {
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
  if (!reported_ms_file_.empty()) fs::remove(job.workdir / reported_ms_file_); // never a previous run's figure
  ProcessResult r = run_process(spec);
  RunOutcome out;
  out.wall_s = r.wall_seconds;
  if (r.interrupted) {
    out.interrupted = true;
    out.status = VariantStatus::NotRun;
    out.reason = "interrupted";
    return out;
  }
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
  if (plan_.timing_mode == TimingMode::WallClock && !reported_ms_file_.empty()) {
    // Test seam: the program says how long it "took"; the timing loop, its
    // stopping rule's time limit and racing see that figure, never the machine's speed.
    std::ifstream in(job.workdir / reported_ms_file_);
    double ms = -1;
    if (!(in >> ms) || ms < 0) {
      out.ok = false;
      out.status = VariantStatus::NoTimingData;
      out.reason = "the program reported no time in " + reported_ms_file_ + " (test seam NESTOR_RUNNER_REPORTED_MS)";
      return out;
    }
    out.sample_ms = ms;
    out.wall_s = ms / 1000;
    return out;
  }
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
std::string PlanRunner::check_outputs(Job& job) {
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

void PlanRunner::fail(Job& job, VariantStatus status, const std::string& reason, const std::string& log_tail) {
  job.result.status = status;
  job.result.reason = reason;
  job.result.log_tail = log_tail;
  job.result.timing.reset();
  progress("[run] " + job.spec->id + ": " + to_string(status) + ": " + reason);
}

// Runs the baseline once to produce the reference outputs every variant is checked against.
void PlanRunner::check_baseline(Job& baseline) {
  auto fail_everything = [&](const std::string& why) {
    for (auto& job : jobs_)
      if (!job.spec->baseline && !job.cached && job.result.status != VariantStatus::BuildFailed && job.reported) {
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
  if (warm.interrupted) return;
  if (warm.ok) baseline.correctness_ms = warm.sample_ms;
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
} // namespace detail

Results run_plan(const Plan& plan, const RunnerOptions& options) { return detail::PlanRunner(plan, options).run(); }

} // namespace nestor::profiler
