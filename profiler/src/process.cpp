#include "nestor/profiler/process.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace nestor::profiler {

namespace {
std::atomic<bool> interrupt_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free, "request_interrupt() must be async-signal-safe");
} // namespace

void request_interrupt() { interrupt_flag.store(true); }
void clear_interrupt() { interrupt_flag.store(false); }
bool interrupt_requested() { return interrupt_flag.load(); }

std::string ProcessResult::describe() const {
  if (interrupted) return "interrupted (process group killed)";
  if (!started) return "could not start: " + error;
  if (timed_out) return "timed out (process group killed)";
  if (signal) return "killed by signal " + std::to_string(*signal) + " (" + strsignal(*signal) + ")";
  if (exit_code) return "exit code " + std::to_string(*exit_code);
  return "unknown status";
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string tail_lines(const std::string& text, size_t lines) {
  size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  for (size_t found = 0; pos > 0; --pos)
    if (text[pos - 1] == '\n' && ++found == lines) break;
  std::string tail = text.substr(pos);
  if (tail.size() > 4000) tail = "..." + tail.substr(tail.size() - 4000);
  return tail;
}

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  if (interrupt_requested() && !spec.ignore_interrupt) {
    result.interrupted = true;
    result.error = "interrupted before it started";
    return result;
  }
  // Everything the child needs is prepared before fork: the runner is
  // multi-threaded, and only async-signal-safe calls are allowed after it.
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    size_t eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (auto& [k, v] : spec.env) env[k] = v;
  std::vector<std::string> env_strings;
  for (auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string workdir = spec.workdir.string(), out = spec.stdout_path.string(), err = spec.stderr_path.string();
  std::string command = spec.command;
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};

  int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out_fd < 0 || err_fd < 0) {
    result.error = "cannot create output files in " + spec.stdout_path.parent_path().string() + ": " + strerror(errno);
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    return result;
  }

  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    result.error = std::string("fork failed: ") + strerror(errno);
    close(out_fd);
    close(err_fd);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0); // own group, so a timeout can kill the program's children too
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    if (chdir(workdir.c_str()) != 0) {
      const char msg[] = "nestor-runner: cannot enter the work directory\n";
      (void)!write(2, msg, sizeof msg - 1);
      _exit(127);
    }
    execve("/bin/sh", const_cast<char* const*>(argv), envp.data());
    _exit(127);
  }
  setpgid(pid, pid); // also from the parent, so the group exists before any kill
  close(out_fd);
  close(err_fd);
  result.started = true;

  // pidfd + poll gives an exact wake-up on exit or at the deadline (no polling
  // loop that would add jitter to wall-clock samples).
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  auto deadline = start + std::chrono::duration<double>(spec.timeout_s);
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    auto now = std::chrono::steady_clock::now();
    if (interrupt_requested() && !spec.ignore_interrupt) {
      result.interrupted = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    if (now >= deadline) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    // Capped so that an interrupt is seen within 100 ms; the pidfd still
    // wakes the wait exactly when the program exits.
    int wait_ms = std::min(100, static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()) + 1);
    if (pidfd >= 0) {
      pollfd fd{pidfd, POLLIN, 0};
      poll(&fd, 1, wait_ms);
    } else {
      usleep(static_cast<useconds_t>(std::min(wait_ms, 2) * 1000)); // kernels without pidfd_open
    }
  }
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (pidfd >= 0) close(pidfd);
  // Reap stragglers the program left in its group (e.g. a background child).
  if (!result.timed_out && !result.interrupted) kill(-pid, SIGKILL);
  if (!result.timed_out && !result.interrupted) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  return result;
}

} // namespace nestor::profiler
