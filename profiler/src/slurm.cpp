#include "nestor/profiler/slurm.h"

#include "nestor/profiler/cache.h"
#include "nestor/profiler/process.h"
#include "nestor/profiler/recommend.h"
#include "nestor/profiler/report.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <sys/vfs.h>
#include <thread>

namespace nestor::profiler {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct CommandOutput {
  ProcessResult process;
  std::string out, err;
};

// Slurm's client commands, with their output captured in the state directory.
CommandOutput slurm_command(const std::string& command, const fs::path& state, const std::string& name, double timeout_s = 60) {
  ProcessSpec spec{command, state, {}, state / ("." + name + ".out"), state / ("." + name + ".err"), timeout_s};
  spec.ignore_interrupt = true; // after Ctrl-C, scancel and squeue must still run
  CommandOutput c{run_process(spec), "", ""};
  c.out = read_file(spec.stdout_path);
  c.err = read_file(spec.stderr_path);
  return c;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  size_t start = s.find_first_not_of(" \t\n");
  return start == std::string::npos ? "" : s.substr(start);
}

std::string random_token() {
  std::random_device device;
  char text[33];
  std::snprintf(text, sizeof text, "%08x%08x%08x%08x", device(), device(), device(), device());
  return text;
}

// Local file systems, where a node other than this one sees other files.
std::optional<std::string> local_fs_name(const fs::path& path) {
  struct statfs info {};
  if (statfs(path.c_str(), &info) != 0) return std::nullopt;
  switch (static_cast<unsigned long>(info.f_type)) {
  case 0xEF53: return "ext2/3/4";
  case 0x58465342: return "xfs";
  case 0x9123683E: return "btrfs";
  case 0x01021994: return "tmpfs";
  case 0x794C7630: return "overlayfs";
  default: return std::nullopt;
  }
}

fs::path self_executable() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this executable (/proc/self/exe) to run on the nodes");
  return self;
}

fs::path task_file(const fs::path& state, unsigned task, const char* what) {
  return state / ("task-" + std::to_string(task) + what);
}

} // namespace

fs::path slurm_state_dir(const Plan& plan) { return fs::absolute(plan.path).parent_path() / ".nestor-slurm"; }

std::string parse_sbatch_job_id(const std::string& output) {
  std::string id = trim(output);
  if (auto semicolon = id.find(';'); semicolon != std::string::npos) id = id.substr(0, semicolon);
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("sbatch printed no job id ('" + trim(output).substr(0, 200) + "')");
  return id;
}

std::vector<SlurmTaskState> parse_sacct(const std::string& output, const std::string& job_id) {
  std::vector<SlurmTaskState> states;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '|');) f.push_back(trim(field));
    if (f.size() < 4 || !f[0].starts_with(job_id + "_")) continue;
    std::string index = f[0].substr(job_id.size() + 1);
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) continue; // "[0-3]": still pending
    std::string state = f[1].substr(0, f[1].find(' ')); // "CANCELLED by 0"
    states.push_back({static_cast<unsigned>(std::stoul(index)), state, f[2], f[3]});
  }
  return states;
}

std::vector<SlurmTaskState> parse_scontrol(const std::string& output) {
  std::vector<SlurmTaskState> states;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    std::map<std::string, std::string> kv;
    std::istringstream words(line);
    for (std::string word; words >> word;)
      if (auto eq = word.find('='); eq != std::string::npos) kv[word.substr(0, eq)] = word.substr(eq + 1);
    if (!kv.count("ArrayTaskId") || kv["ArrayTaskId"].find_first_not_of("0123456789") != std::string::npos) continue;
    states.push_back({static_cast<unsigned>(std::stoul(kv["ArrayTaskId"])), kv["JobState"], kv["ExitCode"], kv["NodeList"]});
  }
  return states;
}

Results run_plan_on_slurm(const Plan& plan, const RunnerOptions& options, const SlurmOptions& slurm) {
  auto progress = [&](const std::string& line) {
    if (options.progress) options.progress("[slurm] " + line);
  };
  const fs::path state = slurm_state_dir(plan);
  fs::create_directories(state);
  if (auto local = local_fs_name(state))
    progress("note: " + state.string() + " is on a local file system (" + *local +
             "); the compute nodes must see the plan directory at the same path (NFS, Lustre, GPFS, ...). "
             "Every task checks this and fails with a clear reason when it does not.");
  for (auto& old : fs::directory_iterator(state))
    if (old.path().filename().string().starts_with("task-")) fs::remove_all(old.path());

  // 1. Builds, here (the login node, or the job this runs in): no GPU needed.
  RunnerOptions build = options;
  build.build_only = true;
  build.scratch_dir = state / "scratch";
  build.only_variants.reset();
  progress("building " + std::to_string(plan.variants.size()) + " variants in " + build.scratch_dir->string());
  Results built = run_plan(plan, build);
  if (interrupt_requested()) return built;

  // 2. Shares: built variants round robin over the tasks (the baseline with task 0).
  std::vector<std::string> ready;
  for (auto& v : built.variants)
    if (v.status == VariantStatus::NotRun) ready.push_back(v.id);
  if (ready.empty()) {
    progress("nothing built, nothing to submit");
    return built;
  }
  const unsigned tasks = std::max(1u, std::min<unsigned>(slurm.gpus, static_cast<unsigned>(ready.size())));
  std::vector<std::vector<std::string>> shares(tasks);
  for (size_t i = 0; i < ready.size(); ++i) shares[i % tasks].push_back(ready[i]);
  const std::string token = random_token();
  write_text_atomic((state / "shares.json").string(), json{{"token", token}, {"plan", fs::absolute(plan.path).string()}, {"tasks", shares}}.dump(1));

  // 3. One job array, one GPU per task.
  fs::path runner = slurm.runner.empty() ? self_executable() : slurm.runner;
  fs::path main_cache = options.cache_path.value_or(fs::absolute(plan.path).parent_path() / ".nestor-runner-cache.jsonl");
  std::ostringstream script;
  script << "#!/bin/sh\n#SBATCH --job-name=nestor-runner\n#SBATCH --array=0-" << tasks - 1
         << "\n#SBATCH --ntasks=1\n#SBATCH --gpus-per-task=1\n#SBATCH --output=" << (state / "task-%a.log").string() << "\n";
  if (slurm.partition) script << "#SBATCH --partition=" << *slurm.partition << "\n";
  if (slurm.time) script << "#SBATCH --time=" << *slurm.time << "\n";
  if (slurm.account) script << "#SBATCH --account=" << *slurm.account << "\n";
  script << "exec " << shell_quote(runner.string()) << " --worker " << shell_quote(fs::absolute(plan.path).string()) << " --state "
         << shell_quote(state.string()) << " --task \"$SLURM_ARRAY_TASK_ID\" --token " << token;
  if (!options.fresh) script << " --cache " << shell_quote(main_cache.string());
  for (auto& arg : slurm.worker_args) script << " " << shell_quote(arg);
  script << "\n";
  write_text_atomic((state / "job.sh").string(), script.str());
  CommandOutput submitted = slurm_command("sbatch --parsable " + shell_quote((state / "job.sh").string()), state, "sbatch");
  if (!submitted.process.ok())
    throw std::runtime_error("sbatch failed (" + submitted.process.describe() + "): " + trim(submitted.err + submitted.out));
  const std::string job = parse_sbatch_job_id(submitted.out);
  progress("submitted job array " + job + " (" + std::to_string(tasks) + " task(s), one GPU each)");

  // 4. Follow it; cancel it on an interrupt or at the time limit.
  auto start = std::chrono::steady_clock::now();
  std::string last;
  bool cancelled = false;
  for (;;) {
    CommandOutput queue = slurm_command("squeue -h -j " + job + " -o '%K %T %N'", state, "squeue");
    std::string now = trim(queue.out);
    if (queue.process.ok() && now.empty()) break;
    if (!queue.process.ok() && (queue.err.find("Invalid job id") != std::string::npos)) break; // purged: finished
    if (now != last) {
      progress("job " + job + ": " + (now.empty() ? trim(queue.err) : now));
      last = now;
    }
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!cancelled && (interrupt_requested() || (slurm.timeout_s > 0 && elapsed > slurm.timeout_s))) {
      progress(std::string(interrupt_requested() ? "interrupted" : "time limit reached") + ": scancel " + job);
      slurm_command("scancel " + job, state, "scancel");
      cancelled = true;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(slurm.poll_s));
  }

  // 5. What became of each task: sacct where accounting is on, else scontrol.
  std::vector<SlurmTaskState> states;
  CommandOutput acct = slurm_command("sacct -X -n -P -j " + job + " -o JobID,State,ExitCode,NodeList", state, "sacct");
  if (acct.process.ok()) states = parse_sacct(acct.out, job);
  if (states.empty()) states = parse_scontrol(slurm_command("scontrol -o show job " + job, state, "scontrol").out);
  std::map<unsigned, SlurmTaskState> by_task;
  for (auto& s : states) by_task[s.task] = s;

  // 6. Merge: each task's results file, else what its cache recorded before
  // it ended, else the task's fate, per variant.
  Results merged = built;
  merged.variants.clear();
  std::map<std::string, VariantResult> measured;
  ResultCache cache(main_cache);
  for (unsigned t = 0; t < tasks; ++t) {
    ResultCache task_cache(task_file(state, t, ".cache.jsonl"));
    for (auto& [key, result] : task_cache.entries()) {
      measured[result.id] = result;
      cache.append(key, result); // a rerun (either executor) resumes from it
    }
    std::ifstream in(task_file(state, t, ".results.json"));
    if (!in) continue;
    try {
      Results part = results_from_json(json::parse(in));
      for (auto& v : part.variants) measured[v.id] = v;
      if (merged.environment.gpus.empty() || merged.environment.devices_assumed) {
        merged.environment = part.environment;
        merged.timing_mode = part.timing_mode;
      }
    } catch (const std::exception& e) {
      progress("task " + std::to_string(t) + ": unreadable results (" + e.what() + ")");
    }
  }
  for (size_t t = 0; t < shares.size(); ++t) {
    const SlurmTaskState* s = by_task.count(t) ? &by_task[t] : nullptr;
    std::string fate = "Slurm task " + job + "_" + std::to_string(t) + " ended " +
                       (s ? s->state + " (exit " + s->exit_code + ") on " + (s->node.empty() ? "no node" : s->node) : "in an unknown state");
    if (s && s->exit_code.starts_with(std::to_string(kExitNotShared) + ":"))
      fate += ": the node does not see " + state.string() + "; the plan directory must be on a file system the nodes share";
    const std::string log = "; log: " + task_file(state, t, ".log").string();
    const bool completed = s && s->state == "COMPLETED";
    for (auto& id : shares[t]) {
      auto it = measured.find(id);
      if (it == measured.end()) {
        VariantResult missing;
        for (auto& v : built.variants)
          if (v.id == id) missing = v;
        missing.status = VariantStatus::NotRun;
        missing.reason = fate + " before measuring it" + log;
        measured[id] = missing;
      } else if (!completed && it->second.status == VariantStatus::NotRun) {
        it->second.reason = fate + ": " + it->second.reason + log; // e.g. interrupted by scancel's SIGTERM
      } else if (!completed && it->second.timing && it->second.timing->stop_reason == "interrupted") {
        it->second.timing->stop_detail = fate + ": " + it->second.timing->stop_detail;
      }
    }
  }
  for (auto& v : built.variants) merged.variants.push_back(measured.count(v.id) ? measured[v.id] : v);
  merged.recommendation = recommend(merged.variants);
  if (merged.timing_mode.empty()) merged.timing_mode = plan.timing_mode == TimingMode::Cupti ? "cupti" : "wall_clock";
  if (!options.keep_scratch) {
    std::error_code ec;
    fs::remove_all(state / "scratch", ec);
  }
  return merged;
}

int run_slurm_worker(const Plan& plan, const fs::path& state, unsigned task, const std::string& token, RunnerOptions options) {
  json shares;
  try {
    std::ifstream in(state / "shares.json");
    if (!in) throw std::runtime_error("cannot read " + (state / "shares.json").string());
    shares = json::parse(in);
    if (shares.at("token") != token) throw std::runtime_error((state / "shares.json").string() + " belongs to another run");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nestor-runner --worker: %s: the plan directory is not shared with this node, or a newer run replaced it\n",
                 e.what());
    return kExitNotShared;
  }
  if (task >= shares.at("tasks").size()) {
    std::fprintf(stderr, "nestor-runner --worker: task %u but the run has %zu\n", task, shares.at("tasks").size());
    return 2;
  }
  if (options.cache_path) options.extra_caches.push_back(*options.cache_path); // read-only: the coordinator merges
  options.cache_path = task_file(state, task, ".cache.jsonl");
  options.reuse_builds = true;
  options.scratch_dir = state / "scratch";
  options.only_variants = shares.at("tasks").at(task).get<std::vector<std::string>>();
  options.worker_tag = "task-" + std::to_string(task);
  Results results = run_plan(plan, options);
  write_text_atomic(task_file(state, task, ".results.json").string(), to_json(results).dump(1) + "\n");
  return interrupt_requested() ? 130 : 0;
}

} // namespace nestor::profiler
