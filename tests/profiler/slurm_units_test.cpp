// What the Slurm executor reads from Slurm's commands (slurm.h): job ids from
// sbatch --parsable, task states from sacct and from scontrol (clusters
// without accounting), including the odd lines real clusters print.
#include "nestor/profiler/slurm.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace nestor::profiler;

TEST(SlurmParse, SbatchJobId) {
  EXPECT_EQ(parse_sbatch_job_id("12345\n"), "12345");
  EXPECT_EQ(parse_sbatch_job_id("12345;cluster-a\n"), "12345");
  EXPECT_THROW(parse_sbatch_job_id(""), std::runtime_error);
  EXPECT_THROW(parse_sbatch_job_id("sbatch: error: Batch job submission failed: Invalid partition name specified"),
               std::runtime_error);
}

TEST(SlurmParse, SacctStatesPerArrayTask) {
  std::string out = "77_0|COMPLETED|0:0|gpu-node-01\n"
                    "77_1|CANCELLED by 1000|0:15|gpu-node-02\n"
                    "77_2|NODE_FAIL|1:0|gpu-node-03\n"
                    "77_[3-4]|PENDING|0:0|None assigned\n"
                    "78_0|COMPLETED|0:0|other-job\n"
                    "garbage line\n";
  std::vector<SlurmTaskState> s = parse_sacct(out, "77");
  ASSERT_EQ(s.size(), 3u) << "pending ranges and other jobs are left out";
  EXPECT_EQ(s[0].task, 0u);
  EXPECT_EQ(s[0].state, "COMPLETED");
  EXPECT_EQ(s[1].state, "CANCELLED") << "'by UID' dropped";
  EXPECT_EQ(s[1].exit_code, "0:15");
  EXPECT_EQ(s[2].state, "NODE_FAIL");
  EXPECT_EQ(s[2].node, "gpu-node-03");
}

TEST(SlurmParse, ScontrolStatesPerArrayTask) {
  std::string out =
      "JobId=5 ArrayJobId=4 ArrayTaskId=1 JobName=nestor-runner JobState=TIMEOUT Reason=TimeLimit ExitCode=0:1 NodeList=n1\n"
      "JobId=4 ArrayJobId=4 ArrayTaskId=0 JobName=nestor-runner JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=n2\n"
      "JobId=6 ArrayJobId=4 ArrayTaskId=2-3 JobName=nestor-runner JobState=PENDING ExitCode=0:0 NodeList=(null)\n";
  std::vector<SlurmTaskState> s = parse_scontrol(out);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].task, 1u);
  EXPECT_EQ(s[0].state, "TIMEOUT");
  EXPECT_EQ(s[1].node, "n2");
}

// A task that does not see the coordinator's state directory (not a shared
// file system), or sees another run's, refuses with kExitNotShared.
TEST(SlurmWorker, RefusesAStateDirectoryItDoesNotShare) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("nestor-slurm-worker-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "project");
  std::ofstream(dir / "project/main.cu") << "int main() {}\n";
  nlohmann::json plan_json = {{"schema_version", 1}, {"project_dir", "project"},
                              {"build", {{"command", "true"}}}, {"run", {{"command", "{exe}"}}},
                              {"check", {{"outputs", {"<stdout>"}}}}, {"timing", {{"mode", "wall_clock"}}},
                              {"variants", {{{"id", "baseline"}, {"baseline", true}, {"source", "main.cu"}}}}};
  std::ofstream(dir / "plan.json") << plan_json.dump();
  Plan plan = load_plan(dir / "plan.json");
  fs::path state = dir / ".nestor-slurm";
  EXPECT_EQ(run_slurm_worker(plan, state, 0, "token", {}), kExitNotShared) << "no shares.json: not shared";
  fs::create_directories(state);
  std::ofstream(state / "shares.json") << nlohmann::json{{"token", "another-run"}, {"tasks", {{"baseline"}}}}.dump();
  EXPECT_EQ(run_slurm_worker(plan, state, 0, "token", {}), kExitNotShared) << "another run's state";
  EXPECT_FALSE(fs::exists(state / "task-0.results.json"));
  fs::remove_all(dir);
}
