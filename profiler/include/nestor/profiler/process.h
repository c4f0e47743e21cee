// Running build and program commands: own process group, timeout that kills
// the whole group (a hung program's children too), output captured to files.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace nestor::profiler {

struct ProcessResult {
  bool started = false;   // false: fork/exec failed (error in `error`)
  bool timed_out = false; // process group was killed after the timeout
  bool interrupted = false; // process group was killed because request_interrupt() was called
  std::optional<int> exit_code;
  std::optional<int> signal; // terminating signal, when killed by one
  double wall_seconds = 0;
  std::string error;
  bool ok() const { return started && !timed_out && exit_code == 0; }
  std::string describe() const; // e.g. "exit code 2", "killed by signal 11 (Segmentation fault)"
};

struct ProcessSpec {
  std::string command;               // run through /bin/sh -c
  std::filesystem::path workdir;
  std::map<std::string, std::string> env; // added to / overriding the runner's environment
  std::filesystem::path stdout_path; // output captured here (truncated first)
  std::filesystem::path stderr_path;
  double timeout_s = 60;
  // Runs even after request_interrupt(): the commands that clean up after an
  // interrupt (scancel, squeue) must still run.
  bool ignore_interrupt = false;
};

ProcessResult run_process(const ProcessSpec& spec);

// Asks every running and future run_process to kill its process group and
// return (interrupted = true). Async-signal-safe: a SIGINT/SIGTERM handler
// calls it, so that Ctrl-C or scancel leaves no program running.
void request_interrupt();
bool interrupt_requested();
void clear_interrupt(); // for a new run in the same process (tests)

std::string read_file(const std::filesystem::path& path);
std::string tail_lines(const std::string& text, size_t lines = 20);

} // namespace nestor::profiler
