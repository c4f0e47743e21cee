#include "nestor/planner/Runner.h"

#include "nestor/profiler/report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NESTOR_RUNNER_BUILD_PATH
#define NESTOR_RUNNER_BUILD_PATH ""
#endif

extern char **environ;

namespace fs = std::filesystem;

namespace nestor::planner {

namespace {
llvm::Error fail(const llvm::Twine &message) { return llvm::createStringError(llvm::inconvertibleErrorCode(), message); }

bool executable(const std::string &path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0 && fs::is_regular_file(path); }
} // namespace

std::optional<std::string> findRunner(const std::string &explicitPath, std::string &why) {
  std::vector<std::string> tried;
  auto consider = [&](const std::string &path, const std::string &how) -> bool {
    if (path.empty()) return false;
    if (executable(path)) return true;
    tried.push_back(path + " (" + how + ")");
    return false;
  };
  if (!explicitPath.empty()) {
    if (consider(explicitPath, "--runner")) return explicitPath;
    why = "--runner " + explicitPath + " is not an executable file";
    return std::nullopt;
  }
  if (auto env = llvm::sys::Process::GetEnv("NESTOR_RUNNER"); env && !env->empty()) {
    if (consider(*env, "$NESTOR_RUNNER")) return *env;
  }
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, reinterpret_cast<void *>(&findRunner));
  if (!self.empty()) {
    std::string next = (fs::path(self).parent_path() / "nestor-runner").string();
    if (consider(next, "next to " + fs::path(self).filename().string())) return next;
  }
  if (consider(NESTOR_RUNNER_BUILD_PATH, "build tree")) return std::string(NESTOR_RUNNER_BUILD_PATH);
  if (auto onPath = llvm::sys::findProgramByName("nestor-runner")) return *onPath;
  tried.push_back("nestor-runner on PATH");
  why = "nestor-runner not found; tried ";
  for (size_t i = 0; i < tried.size(); ++i) why += (i ? ", " : "") + tried[i];
  why += "; build it (cmake --build BUILD --target nestor-runner) or pass --runner PATH";
  return std::nullopt;
}

// ---- progress ----------------------------------------------------------------

RunnerProgress::RunnerProgress(std::vector<std::string> variantIds) : ids_(std::move(variantIds)) {}

bool RunnerProgress::feed(const std::string &line) {
  // "[build] ID: ok (12 ms)", "[build] ID: FAILED (...)", "[run] ID: status: reason",
  // "[time] ID: median ...", "[cache] ID: status (from ...)".
  auto close = line.find("] ");
  if (line.empty() || line[0] != '[' || close == std::string::npos) return false;
  std::string tag = line.substr(1, close - 1);
  std::string rest = line.substr(close + 2);
  auto colon = rest.find(": ");
  if (colon == std::string::npos) return false;
  std::string id = rest.substr(0, colon);
  if (std::find(ids_.begin(), ids_.end(), id) == ids_.end()) return false;
  auto add = [](std::vector<std::string> &to, const std::string &id) {
    if (std::find(to.begin(), to.end(), id) == to.end()) to.push_back(id);
  };
  std::string detail = rest.substr(colon + 2);
  if (tag == "build") {
    add(built_, id);
    if (llvm::StringRef(detail).starts_with("FAILED")) add(finished_, id);
  } else if (tag == "run" || tag == "time" || tag == "cache") {
    add(built_, id);
    add(finished_, id);
  } else {
    return false;
  }
  last_ = tag + " " + id + ": " + detail;
  return true;
}

double RunnerProgress::fraction() const {
  if (ids_.empty()) return 1;
  return double(built_.size() + finished_.size()) / double(2 * ids_.size());
}

// ---- the process ---------------------------------------------------------------

namespace {

/// Direct children of `parent`, from /proc.
std::vector<pid_t> childrenOf(pid_t parent) {
  std::vector<pid_t> out;
  DIR *d = ::opendir("/proc");
  if (!d) return out;
  while (dirent *e = ::readdir(d)) {
    char *end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (!end || *end || pid <= 0) continue;
    std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    auto paren = text.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(text.substr(paren + 1));
    char state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == parent) out.push_back(pid_t(pid));
  }
  ::closedir(d);
  return out;
}

/// Stops the runner, kills what it started, then the runner.
void killRunnerTree(pid_t runner) {
  ::kill(runner, SIGSTOP); // it starts nothing new from here on
  const pid_t ours = ::getpgrp();
  for (pid_t child : childrenOf(runner)) {
    pid_t group = ::getpgid(child);
    if (group > 0 && group != ours) ::kill(-group, SIGKILL);
    ::kill(child, SIGKILL);
  }
  ::kill(-runner, SIGKILL); // the runner's own group (it was made its leader)
  ::kill(runner, SIGKILL);
}

} // namespace

RunnerExit runRunner(const RunnerCall &call, const std::function<void(const std::string &)> &onLine,
                     const std::atomic<bool> *cancelled) {
  RunnerExit result;
  std::vector<std::string> args{call.runner, call.plan, "-o", call.results};
  for (const std::string &r : call.reports) {
    args.push_back("--report");
    args.push_back(r);
  }
  if (call.cache) {
    args.push_back("--cache");
    args.push_back(*call.cache);
  }
  if (call.fresh) args.push_back("--fresh");

  // The runner's scratch copies go to a directory of our own, so that a
  // cancelled (killed) runner leaves nothing behind.
  std::string scratchPattern = (fs::temp_directory_path() / "nestor-profile-XXXXXX").string();
  if (!::mkdtemp(scratchPattern.data())) {
    result.error = "cannot create a temporary directory in " + fs::temp_directory_path().string() + ": " + std::strerror(errno);
    return result;
  }
  const std::string scratch = scratchPattern;
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e)
    if (std::strncmp(*e, "TMPDIR=", 7) != 0) env.push_back(*e);
  env.push_back("TMPDIR=" + scratch);

  // Everything exec needs is prepared before fork: the server is
  // multi-threaded, and the child may only make async-signal-safe calls.
  std::vector<char *> argv, envp;
  for (std::string &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string &e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int errPipe[2];
  if (::pipe2(errPipe, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    fs::remove_all(scratch);
    return result;
  }
  int devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  pid_t pid = ::fork();
  if (pid < 0) {
    result.error = std::string("fork: ") + std::strerror(errno);
    ::close(errPipe[0]);
    ::close(errPipe[1]);
    if (devNull >= 0) ::close(devNull);
    fs::remove_all(scratch);
    return result;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    if (devNull >= 0) {
      ::dup2(devNull, 0);
      ::dup2(devNull, 1); // the Markdown table: rendered from the results instead
    }
    ::dup2(errPipe[1], 2);
    ::execve(argv[0], argv.data(), envp.data());
    const char msg[] = "nestor: cannot execute nestor-runner\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(errPipe[1]);
  if (devNull >= 0) ::close(devNull);

  std::string pending;
  std::deque<std::string> tail;
  auto line = [&](std::string l) {
    if (onLine) onLine(l);
    tail.push_back(std::move(l));
    if (tail.size() > 20) tail.pop_front();
  };
  bool open = true;
  while (open) {
    if (cancelled && cancelled->load()) {
      killRunnerTree(pid);
      result.cancelled = true;
      break;
    }
    pollfd p{errPipe[0], POLLIN, 0};
    int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char buf[4096];
    ssize_t n = ::read(errPipe[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      open = false;
      break;
    }
    pending.append(buf, size_t(n));
    for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
      line(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
  if (!pending.empty() && !result.cancelled) line(pending);
  ::close(errPipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!result.cancelled) {
    if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) result.error = "nestor-runner was killed by signal " + std::to_string(WTERMSIG(status));
  }
  for (const std::string &l : tail) result.stderrTail += l + "\n";
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return result;
}

// ---- results -------------------------------------------------------------------

llvm::Expected<profiler::Results> readResults(const std::string &path) {
  std::ifstream in(path);
  if (!in) return fail("cannot read results '" + path + "'");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception &e) {
    return fail(path + ": not JSON: " + e.what());
  }
  try {
    return profiler::results_from_json(j);
  } catch (const std::exception &e) {
    return fail(path + ": not nestor-runner results: " + e.what());
  }
}

std::optional<std::string> rewriteCommandOf(const profiler::Results &results, const std::string &variantId) {
  for (const profiler::VariantResult &v : results.variants)
    if (v.id == variantId && v.params.is_object() && v.params.contains("rewrite_command") && v.params["rewrite_command"].is_string())
      return v.params["rewrite_command"].get<std::string>();
  return std::nullopt;
}

std::string renderForTerminal(const profiler::Results &results) {
  std::string out = profiler::render_markdown(results);
  const profiler::Recommendation &r = results.recommendation;
  if (r.decision == "variant" && r.variant)
    if (auto cmd = rewriteCommandOf(results, *r.variant))
      out += "\nTo apply it (from the project directory): " + *cmd + " -i\n";
  return out;
}

nlohmann::json editorReport(const profiler::Results &results, const std::string &kernel) {
  nlohmann::json variants = nlohmann::json::array();
  std::string baselineId = "baseline";
  for (const profiler::VariantResult &v : results.variants) {
    if (v.baseline) baselineId = v.id;
    nlohmann::json row = {{"name", v.id},
                          {"status", profiler::to_string(v.status)},
                          {"reason", v.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.reason)},
                          {"description", v.description},
                          {"baseline", v.baseline},
                          {"from_cache", v.from_cache}};
    if (v.timing) {
      row["median_ms"] = v.timing->median;
      row["iqr_ms"] = {v.timing->q1, v.timing->q3};
      row["samples"] = v.timing->samples.size();
      // Why timing stopped: the editor marks variants racing eliminated.
      row["stop_reason"] = v.timing->stop_reason;
      row["stop_detail"] = v.timing->stop_detail;
    } else {
      row["median_ms"] = nullptr;
      row["iqr_ms"] = nullptr;
      row["samples"] = 0;
    }
    variants.push_back(std::move(row));
  }
  std::string device;
  for (const profiler::GpuInfo &g : results.environment.gpus) device += (device.empty() ? "" : ", ") + g.name;
  if (results.environment.devices_assumed)
    device = "test mode: devices assumed (NESTOR_RUNNER_ASSUME_DEVICES), not GPU measurements";
  const profiler::Recommendation &rec = results.recommendation;
  // "Keep the baseline" is a recommendation too: the editor highlights the
  // baseline and shows why.
  nlohmann::json recommendation = {{"variant", rec.decision == "variant" && rec.variant ? *rec.variant : baselineId},
                                   {"reason", rec.reason}};
  nlohmann::json out = {{"kernel", kernel},
                        {"device", device.empty() ? nlohmann::json(nullptr) : nlohmann::json(device)},
                        {"variants", variants},
                        {"recommendation", recommendation},
                        {"decision", rec.decision},
                        {"criterion", rec.criterion},
                        {"timing_mode", results.timing_mode},
                        {"markdown", profiler::render_markdown(results)},
                        {"results", profiler::to_json(results)}};
  if (rec.decision == "variant" && rec.variant)
    if (auto cmd = rewriteCommandOf(results, *rec.variant)) out["apply"] = *cmd;
  return out;
}

} // namespace nestor::planner
