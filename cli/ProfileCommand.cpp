// `nestor profile FILE [--kernel NAME] [--budget N] [--report out.{json,md,svg}]
//                 [--plan DIR | --results FILE] [--fresh] [--runner PATH] [-- flags]`
//
// Lists the candidate variants of a kernel (every applicable rewrite x its
// parameter grid, and the thesis' chains of device-launch rewrites),
// generates their sources and a plan (profiler/planner), and runs
// nestor-runner on it: build, check against the baseline, time, recommend.
// --plan writes the plan for a runner on another machine and stops;
// --results reads such a runner's results back. Exit codes: 0 measured (or
// plan written), 1 runtime error or nothing to profile, 2 bad usage or
// configuration, 3 no CUDA device (the candidates are listed instead).
// docs/profile-planner.md.
#include "Commands.h"
#include "Options.h"

#include "nestor/Analysis.h"
#include "nestor/Config.h"
#include "nestor/planner/Planner.h"
#include "nestor/planner/Runner.h"
#include "nestor/profiler/devices.h"
#include "nestor/profiler/report.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <filesystem>

using namespace llvm;

namespace nestor::cli {
cl::opt<std::string> ProfileKernel("kernel", cl::desc("Kernel to profile (default: every kernel with findings)"),
                                   cl::value_desc("name"), cl::sub(ProfileCmd));
cl::opt<std::string> ProfileReport("report", cl::desc("Also write the report: .json, .md or .svg"), cl::value_desc("file"),
                                   cl::sub(ProfileCmd));
cl::opt<std::string> ProfilePlanOnly("plan", cl::desc("Write the plan and variant sources into DIR for a runner elsewhere, and stop"),
                                     cl::value_desc("dir"), cl::sub(ProfileCmd));
cl::opt<std::string> ProfileResults("results", cl::desc("Read a runner's RESULTS.json instead of running"),
                                    cl::value_desc("file"), cl::sub(ProfileCmd));
cl::opt<std::string> ProfileRunner("runner", cl::desc("Path of nestor-runner (default: next to nestor, the build tree, PATH)"),
                                   cl::value_desc("path"), cl::sub(ProfileCmd));
cl::opt<unsigned> ProfileBudget("budget", cl::desc("Keep the N most promising variants (static order; 0: all)"),
                                cl::init(0), cl::sub(ProfileCmd));
cl::opt<bool> ProfileFresh("fresh", cl::desc("Measure again instead of reusing the runner's cached results"),
                           cl::sub(ProfileCmd));
static cl::opt<std::string> ProfileConfigFile("config", cl::desc("Configuration with the profile section (default: nearest .nestor.yaml)"),
                                              cl::value_desc("file"), cl::sub(ProfileCmd));
static cl::opt<std::string> ProfileProject("project", cl::desc("Directory copied for each variant (default: the directory of the .nestor.yaml)"),
                                           cl::value_desc("dir"), cl::sub(ProfileCmd));
static cl::opt<std::string> ProfileTiming("timing", cl::desc("cupti (kernel time, default) or wall_clock (whole run)"),
                                          cl::value_desc("mode"), cl::sub(ProfileCmd));

namespace {

namespace fs = std::filesystem;
constexpr int kOk = 0, kRuntimeError = 1, kUsage = 2, kNoDevice = 3;

bool validReportName(const std::string &path) {
  return StringRef(path).ends_with(".json") || StringRef(path).ends_with(".md") || StringRef(path).ends_with(".svg");
}

int writeReport(const profiler::Results &results) {
  if (ProfileReport.empty()) return kOk;
  try {
    profiler::write_report(results, ProfileReport);
  } catch (const std::exception &e) {
    errs() << "nestor profile: " << e.what() << "\n";
    return kRuntimeError;
  }
  errs() << "nestor profile: report written to " << ProfileReport << "\n";
  return kOk;
}

int showResults(const std::string &path) {
  auto results = planner::readResults(path);
  if (!results) {
    errs() << "nestor profile: " << toString(results.takeError()) << "\n";
    return kUsage;
  }
  outs() << planner::renderForTerminal(*results);
  outs().flush();
  return writeReport(*results);
}

/// A one-line progress bar on a terminal; plain lines otherwise (logs).
class Progress {
public:
  Progress() : tty_(sys::Process::StandardErrIsDisplayed()) {}
  ~Progress() { done(); }
  void bar(const std::string &phase, double fraction, const std::string &event) {
    if (!tty_) return;
    const int width = 28;
    int filled = int(std::clamp(fraction, 0.0, 1.0) * width + 0.5);
    std::string text = "\r" + phase + " [" + std::string(size_t(filled), '#') + std::string(size_t(width - filled), '.') +
                       "] " + std::to_string(int(fraction * 100 + 0.5)) + "% " + event;
    unsigned columns = sys::Process::StandardErrColumns();
    if (columns > 10 && text.size() > columns) text.resize(columns - 1);
    errs() << text << std::string(lastWidth_ > text.size() ? lastWidth_ - text.size() : 0, ' ');
    lastWidth_ = text.size();
    errs().flush();
    shown_ = true;
  }
  void line(const std::string &text) {
    if (tty_) return;
    errs() << text << "\n";
  }
  void done() {
    if (shown_) errs() << "\n";
    shown_ = false;
    lastWidth_ = 0;
  }
  bool tty() const { return tty_; }

private:
  bool tty_;
  bool shown_ = false;
  size_t lastWidth_ = 0;
};

void printCandidates(const std::vector<planner::Candidate> &candidates, raw_ostream &os) {
  for (const std::string &l : planner::describeCandidates(candidates)) os << "  " << l << "\n";
}

} // namespace

int runProfile(const std::optional<std::vector<std::string>> &compileFlags) {
  if (!ProfileReport.empty() && !validReportName(ProfileReport)) {
    errs() << "nestor profile: --report '" << ProfileReport << "' must end in .json, .md or .svg\n";
    return kUsage;
  }
  if (!ProfilePlanOnly.empty() && !ProfileResults.empty()) {
    errs() << "nestor profile: --plan (write a plan) and --results (read results) exclude each other\n";
    return kUsage;
  }
  if (!ProfileTiming.empty() && ProfileTiming != "cupti" && ProfileTiming != "wall_clock") {
    errs() << "nestor profile: --timing expects cupti or wall_clock, got '" << ProfileTiming << "'\n";
    return kUsage;
  }
  if (!ProfileResults.empty()) {
    if (Inputs.size() > 1) {
      errs() << "nestor profile: --results reads one results file; give at most one source file\n";
      return kUsage;
    }
    return showResults(ProfileResults);
  }
  if (Inputs.size() != 1) {
    errs() << "nestor profile: give exactly one .cu file (or --results FILE)\n";
    return kUsage;
  }
  const std::string file = Inputs.front();
  if (Error err = checkInputFile(file)) {
    errs() << "nestor profile: " << toString(std::move(err)) << "\n";
    return kUsage;
  }

  // Configuration: the profile section says how to build, run and check.
  Config config;
  std::string configPath;
  if (!ProfileConfigFile.empty()) configPath = ProfileConfigFile;
  else if (auto found = findConfigFor(file)) configPath = *found;
  if (!configPath.empty()) {
    auto loaded = loadConfig(configPath);
    if (!loaded) {
      errs() << "nestor profile: " << toString(loaded.takeError()) << "\n";
      return kUsage;
    }
    config = std::move(*loaded);
  }

  AnalysisOptions opts;
  if (!BuildPath.empty()) opts.flags.compileCommandsDir = BuildPath.getValue();
  opts.flags.userFlags = compileFlags;
  opts.flags.gpuArch = GpuArch;
  auto tu = analyzeFile(file, opts);
  if (!tu) {
    errs() << "nestor profile: " << toString(tu.takeError()) << "\n";
    return kUsage;
  }
  addResourceUsage(config.mapping, **tu);
  auto list = planner::listCandidates(**tu, config, ProfileKernel);
  if (!list) {
    errs() << "nestor profile: " << toString(list.takeError()) << "\n";
    return kUsage;
  }
  for (const std::string &note : list->notes) errs() << "nestor profile: note: " << note << "\n";
  if (list->candidates.empty()) {
    if (list->kernels.empty())
      errs() << "nestor profile: nothing to profile: no kernel in " << file
             << " has findings; name one with --kernel NAME\n";
    else
      errs() << "nestor profile: nothing to profile: no rewrite applies to the loops and launches of "
             << join(list->kernels, ", ") << " (see `nestor rewrite " << file << " --at LINE --list`)\n";
    return kRuntimeError;
  }

  if (Error err = planner::checkProfileConfig(config.profile, configPath, file)) {
    errs() << "nestor profile: " << toString(std::move(err)) << "\n";
    errs() << "Candidates it would time (" << list->candidates.size() << "):\n";
    printCandidates(list->candidates, errs());
    return kUsage;
  }

  std::string runner;
  if (ProfilePlanOnly.empty()) {
    // Without a device nothing is generated: say so at once, with the list.
    profiler::DeviceInventory devices = profiler::detect_devices();
    if (devices.gpus.empty()) {
      errs() << "nestor profile: no CUDA device: " << devices.why_none
             << "\nNothing was built or run. The " << list->candidates.size()
             << " candidate variants it would have timed"
             << (ProfileBudget ? " (the first " + std::to_string(ProfileBudget) + " of them with --budget)" : std::string())
             << ", most promising first:\n";
      printCandidates(list->candidates, outs());
      errs() << "Write a plan for a GPU machine with --plan DIR, run nestor-runner there, and read its results back with "
                "--results FILE.\n";
      return kNoDevice;
    }
    std::string why;
    auto found = planner::findRunner(ProfileRunner, why);
    if (!found) {
      errs() << "nestor profile: " << why << "\n";
      return kUsage;
    }
    runner = *found;
  }

  planner::PlanRequest request;
  request.planDir = ProfilePlanOnly.empty() ? planner::defaultPlanDir(file, ProfileKernel) : ProfilePlanOnly.getValue();
  if (!ProfileProject.empty()) request.projectDir = ProfileProject;
  else if (!configPath.empty() && ProfileConfigFile.empty()) request.projectDir = sys::path::parent_path(configPath).str();
  else request.projectDir = sys::path::parent_path(file).str();
  if (request.projectDir.empty()) request.projectDir = ".";
  request.runtimeIncludeDir = planner::runtimeIncludeDir();
  request.profile = config.profile;
  request.configPath = configPath;
  request.timingMode = ProfileTiming;
  request.budget = ProfileBudget;
  // A plan written for another machine keeps the project's place relative to
  // it; the local cache directory refers to the project absolutely.
  request.relativeProjectDir = !ProfilePlanOnly.empty();
  Progress progress;
  size_t total = ProfileBudget ? std::min<size_t>(ProfileBudget, list->candidates.size()) : list->candidates.size();
  size_t made = 0;
  request.progress = [&](const std::string &line) {
    progress.bar("generating", double(made++) / double(std::max<size_t>(total, 1)), line);
  };
  auto plan = planner::writePlan(**tu, opts, *list, request);
  progress.done();
  if (!plan) {
    errs() << "nestor profile: " << toString(plan.takeError()) << "\n";
    return kUsage;
  }
  for (const std::string &w : plan->warnings) errs() << "nestor profile: warning: " << w << "\n";
  for (const auto &[c, why] : plan->dropped) errs() << "nestor profile: not generated: " << c.id << ": " << why << "\n";
  if (plan->notTried) errs() << "nestor profile: " << plan->notTried << " less promising candidates left out by --budget\n";

  if (!ProfilePlanOnly.empty()) {
    outs() << "Plan written: " << plan->planPath << " (baseline + " << plan->kept.size() << " variants)\n";
    printCandidates(plan->kept, outs());
    outs() << "Run it where there is a GPU:\n  nestor-runner " << plan->planPath
           << " -o results.json\nthen read the results back:\n  nestor profile --results results.json\n";
    return kOk;
  }
  if (plan->kept.empty()) {
    errs() << "nestor profile: no candidate could be generated; nothing to time\n";
    return kRuntimeError;
  }

  // The configuration's commands run on this machine: say which, and from
  // where, before anything runs (the LSP runs them only in trusted
  // workspaces; here the user named the file, and sees the commands first).
  errs() << "nestor profile: running the commands of " << (configPath.empty() ? std::string("the configuration") : configPath)
         << " in copies of " << request.projectDir << ":\n  build: " << config.profile.build
         << "\n  run:   " << config.profile.run << "\n";
  if (!llvm::StringRef(config.profile.check).trim().empty()) errs() << "  check: " << config.profile.check << "\n";

  std::vector<std::string> ids{"baseline"};
  for (const planner::Candidate &c : plan->kept) ids.push_back(c.id);
  planner::RunnerProgress tracker(ids);
  planner::RunnerCall call;
  call.runner = runner;
  call.plan = plan->planPath;
  call.results = (fs::path(plan->planPath).parent_path() / "results.json").string();
  call.fresh = ProfileFresh;
  if (!progress.tty())
    errs() << "nestor profile: timing baseline + " << plan->kept.size() << " variants with " << runner << "\n";
  planner::RunnerExit exit = planner::runRunner(
      call,
      [&](const std::string &line) {
        if (tracker.feed(line)) progress.bar("profiling", tracker.fraction(), tracker.lastEvent());
        progress.line(line);
      },
      nullptr);
  progress.done();
  if (!exit.error.empty()) {
    errs() << "nestor profile: " << exit.error << "\n" << exit.stderrTail;
    return kRuntimeError;
  }
  if (exit.exitCode == kNoDevice) {
    errs() << exit.stderrTail << "nestor profile: no CUDA device; the candidates it would have timed:\n";
    printCandidates(plan->kept, outs());
    return kNoDevice;
  }
  if (exit.exitCode != 0) {
    errs() << "nestor profile: nestor-runner failed (exit " << exit.exitCode << "):\n" << exit.stderrTail;
    return kRuntimeError;
  }
  auto results = planner::readResults(call.results);
  if (!results) {
    errs() << "nestor profile: " << toString(results.takeError()) << "\n";
    return kRuntimeError;
  }
  outs() << planner::renderForTerminal(*results);
  outs().flush();
  errs() << "nestor profile: plan, variants and results in " << fs::path(plan->planPath).parent_path().string() << "\n";
  return writeReport(*results);
}
} // namespace nestor::cli
