// The Slurm executor: `nestor-runner PLAN -o RESULTS --executor slurm`.
//
// The coordinator (login node) builds every variant into
// <plan dir>/.nestor-slurm/scratch (no GPU needed), shares the built variants
// out between the tasks of one `sbatch` job array (one GPU per task), follows
// the job with squeue, reads each task's state from sacct (or scontrol where
// accounting is off), merges the tasks' results and cancels the job (scancel)
// on SIGINT/SIGTERM or at its time limit. Each task is `nestor-runner
// --worker`: it reuses the builds, runs the baseline once for its own
// reference outputs and times its share (racing within the share), appending
// each finished variant to its own cache file, so that a task Slurm kills
// still leaves what it measured. Every variant is reported: one whose task
// ended before measuring it gets the task's state, exit code and node.
// The plan directory must be on a file system the nodes share; a task that
// does not see the coordinator's files there exits with kExitNotShared.
#pragma once
#include "nestor/profiler/plan.h"
#include "nestor/profiler/results.h"
#include "nestor/profiler/runner.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace nestor::profiler {

inline constexpr int kExitNotShared = 5; // a worker cannot see the coordinator's state directory

struct SlurmOptions {
  std::optional<std::string> partition, time, account;
  unsigned gpus = 1;                   // array tasks, one GPU each
  std::filesystem::path runner;        // the nestor-runner the tasks run (default: this executable)
  std::vector<std::string> worker_args; // options forwarded to the tasks (--racing, --cupti-lib, ...)
  double poll_s = 2;
  double timeout_s = 0;                // whole job; 0: no limit (Slurm's --time still applies)
};

// Where the coordinator keeps its files: <plan dir>/.nestor-slurm.
std::filesystem::path slurm_state_dir(const Plan& plan);

Results run_plan_on_slurm(const Plan& plan, const RunnerOptions& options, const SlurmOptions& slurm);

// One array task: returns the process exit code (writes <state>/task-N.results.json).
int run_slurm_worker(const Plan& plan, const std::filesystem::path& state, unsigned task, const std::string& token,
                     RunnerOptions options);

// "12345" or "12345;cluster" (sbatch --parsable) -> "12345"; throws on anything else.
std::string parse_sbatch_job_id(const std::string& output);

struct SlurmTaskState {
  unsigned task = 0;
  std::string state;     // COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, ...
  std::string exit_code; // "0:0" (code:signal)
  std::string node;
};
// `sacct -X -n -P -o JobID,State,ExitCode,NodeList` lines of job `job_id`.
std::vector<SlurmTaskState> parse_sacct(const std::string& output, const std::string& job_id);
// `scontrol -o show job JOB` lines (one per array task).
std::vector<SlurmTaskState> parse_scontrol(const std::string& output);

} // namespace nestor::profiler
