#include "Commands.h"
#include "LintInputs.h"
#include "Options.h"

#include "nestor/Analysis.h"
#include "nestor/CompileFlags.h"
#include "nestor/CrashRecovery.h"
#include "nestor/Lint.h"
#include "nestor/MappingAdvisor.h"
#include "nestor/ResourceUsage.h"
#include "nestor/ModelJson.h"
#include "nestor/ProjectIndex.h"
#include "nestor/Rule.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>
#include <set>
#include <variant>
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace nestor::cli {

cl::SubCommand AnalyzeCmd("analyze", "Print the Nestor model (kernels, loops, launches) of CUDA files");
cl::SubCommand LintCmd("lint", "Report nested-parallelism findings (text, JSON or SARIF)");
cl::SubCommand RewriteCmd("rewrite", "Apply a rewrite at a loop or launch");
cl::SubCommand LspCmd("lsp", "Run the language server on stdin/stdout");
cl::SubCommand ProfileCmd("profile", "Build, check and time rewrite variants on the GPU");

static cl::OptionCategory Category("nestor options");
cl::list<std::string> Inputs(cl::Positional, cl::desc("<file|dir|glob>..."), cl::sub(AnalyzeCmd), cl::sub(LintCmd),
                             cl::sub(RewriteCmd), cl::sub(ProfileCmd), cl::cat(Category));
cl::opt<std::string> BuildPath("p", cl::desc("Directory with compile_commands.json"), cl::value_desc("dir"),
                               cl::sub(AnalyzeCmd), cl::sub(LintCmd), cl::sub(RewriteCmd), cl::sub(ProfileCmd),
                               cl::cat(Category));
cl::opt<std::string> GpuArch("gpu-arch", cl::desc("GPU architecture when the flags name none"), cl::init("sm_90"),
                             cl::sub(AnalyzeCmd), cl::sub(LintCmd), cl::sub(RewriteCmd), cl::sub(ProfileCmd),
                             cl::cat(Category));
static cl::opt<bool> Json("json", cl::desc("Print the model as JSON"), cl::sub(AnalyzeCmd), cl::cat(Category));
static cl::opt<bool> ResourceUsage("resource-usage",
                                   cl::desc("Read each kernel's registers from nvcc --resource-usage for the mapping "
                                            "model when nvcc is present (default on; =false to estimate)"),
                                   cl::init(true), cl::sub(AnalyzeCmd), cl::sub(RewriteCmd), cl::sub(ProfileCmd),
                                   cl::cat(Category));
static cl::opt<std::string> Format("format", cl::desc("Output format: text, json or sarif"), cl::init("text"),
                                   cl::sub(LintCmd), cl::cat(Category));
static cl::opt<std::string> FailOn("fail-on", cl::desc("Exit 1 on findings at or above: error, warning, note, never"),
                                   cl::init("warning"), cl::sub(LintCmd), cl::cat(Category));
static cl::opt<unsigned> Jobs("j", cl::desc("Files analysed in parallel (0: all cores)"), cl::init(0),
                              cl::sub(LintCmd), cl::cat(Category));
static cl::opt<std::string> ConfigFile("config", cl::desc("Configuration file (default: nearest .nestor.yaml)"),
                                       cl::sub(LintCmd), cl::cat(Category));
static cl::opt<bool> RuntimeDir("runtime-dir", cl::desc("Print the include directory rewritten code needs (-I)"),
                                cl::cat(Category));
static cl::opt<bool> ListRules("list-rules", cl::desc("List the rules"), cl::sub(LintCmd), cl::cat(Category));
static cl::list<std::string> Excludes("exclude",
                                      cl::desc("Skip files matching GLOB (relative to the working directory or "
                                               "absolute; a matching directory skips everything under it)"),
                                      cl::value_desc("glob"), cl::sub(LintCmd), cl::cat(Category));
static cl::opt<std::string> HeaderFilter("header-filter",
                                         cl::desc("With -p: also lint files the database has no entry for (headers, "
                                                  "a .cu a wrapper includes) whose path matches REGEX, with the "
                                                  "command of a file that includes them"),
                                         cl::value_desc("regex"), cl::sub(LintCmd), cl::cat(Category));
static cl::opt<std::string> Baseline("baseline",
                                     cl::desc("Report only findings that are not in FILE, a saved SARIF or JSON "
                                              "report (matched by fingerprint); the exit code counts only new ones"),
                                     cl::value_desc("file"), cl::sub(LintCmd), cl::cat(Category));
static cl::opt<std::string> WriteBaseline("write-baseline",
                                          cl::desc("Write every finding of this run to FILE (JSON) for --baseline"),
                                          cl::value_desc("file"), cl::sub(LintCmd), cl::cat(Category));
static cl::opt<bool> Progress("progress", cl::desc("Show a progress line on stderr (default: when it is a terminal)"),
                              cl::init(true), cl::sub(LintCmd), cl::cat(Category));

namespace {

/// `nestor lint` and `nestor analyze` exit with this when an analysis crashed
/// (and was recovered from): distinct from findings (1) and bad input (2).
constexpr int ExitInternalError = 4;

/// "FILE:LINE: analysis failed (internal error: SIGSEGV) while ...".
std::string internalErrorText(const std::string &file, const InternalError &e) {
  std::string where = file;
  if (e.where.valid()) where += ":" + std::to_string(e.where.begin.line) + ":" + std::to_string(e.where.begin.column);
  return where + ": " + e.describe();
}

FlagOptions flagOptions(const std::optional<std::vector<std::string>> &compileFlags) {
  FlagOptions f;
  if (!BuildPath.empty()) f.compileCommandsDir = BuildPath.getValue();
  f.userFlags = compileFlags;
  f.gpuArch = GpuArch;
  return f;
}

struct ConfigCache {
  std::mutex mu;
  std::map<std::string, Expected<Config>> byPath;
  std::optional<Config> defaults = Config{};
  // Returns the config for a file, or an error message.
  std::variant<Config, std::string> forFile(const std::string &file) {
    std::string path = ConfigFile.empty() ? findConfigFor(file).value_or("") : ConfigFile.getValue();
    if (path.empty()) return Config{};
    std::lock_guard<std::mutex> l(mu);
    auto it = byPath.find(path);
    if (it == byPath.end()) it = byPath.emplace(path, loadConfig(path)).first;
    if (!it->second) {
      std::string msg = toString(it->second.takeError());
      it->second = createStringError(msg); // keep it for the next file
      return msg;
    }
    return *it->second;
  }
};

int runAnalyze(const std::optional<std::vector<std::string>> &compileFlags) {
  if (Inputs.empty()) {
    errs() << "nestor analyze: no input files\n";
    return 2;
  }
  int rc = 0;
  json::Array models;
  bool anyInternalError = false;
  std::unique_ptr<ProjectIndex> project;
  std::string projectDir;
  for (const std::string &file : Inputs) {
    // The analysis and the mapping advice run under crash recovery: a crash
    // is reported for this file and the next one is analysed (exit code 4).
    std::unique_ptr<AnalyzedTU> tu;
    std::optional<std::string> failed;
    std::vector<OfferRanking> advice;
    auto crash = runRecoveringCrashes([&] {
      AnalysisOptions opts;
      opts.flags = flagOptions(compileFlags);
      // With the project's database (-p): the kernels' launches in its other
      // translation units (external_launches), from one index for every file.
      std::string dbDir = opts.flags.compileCommandsDir.value_or("");
      if (!dbDir.empty() && !project) {
        project = std::make_unique<ProjectIndex>(dbDir, opts.flags);
        projectDir = dbDir;
        if (!project->error().empty()) project.reset();
      }
      if (project && dbDir == projectDir) opts.project = project.get();
      auto analysed = analyzeFile(file, opts);
      if (!analysed) {
        failed = toString(analysed.takeError());
        return;
      }
      tu = std::move(*analysed);
      auto mappingConfig = mappingConfigFor(*tu);
      if (!mappingConfig) {
        failed = toString(mappingConfig.takeError());
        return;
      }
      AnalysisStep step("advising mappings");
      // The one ranking of every offer (rewrite --list, the hover, the planner).
      for (const LoopSite &l : tu->model().loops)
        if (OfferRanking r = rankOffers(*tu, *mappingConfig, {RewriteTarget::Kind::Loop, l.id}); r.advice)
          advice.push_back(std::move(r));
      for (const LaunchSite &l : tu->model().launches)
        if (OfferRanking r = rankOffers(*tu, *mappingConfig, {RewriteTarget::Kind::Launch, l.id}); r.advice)
          advice.push_back(std::move(r));
    });
    if (crash) {
      (void)tu.release(); // what a crashed analysis left is not safe to free
      errs() << "error: " << internalErrorText(file, *crash) << "\n";
      anyInternalError = true;
      continue;
    }
    if (failed) {
      errs() << "error: " << *failed << "\n";
      rc = 2;
      continue;
    }
    const FileModel &m = tu->model();
    if (!m.droppedFlags.empty())
      errs() << "note: " << file << ": dropped flags clang does not take: " << join(m.droppedFlags, ", ") << "\n";
    if (Json) {
      json::Value model = toJSON(m);
      json::Array mappings;
      for (const OfferRanking &r : advice) {
        json::Value v = toJSON(*r.advice);
        json::Array offers;
        for (const RankedOffer &o : r.offers) {
          if (!o.applies) continue;
          json::Object params;
          for (const auto &[k, val] : o.params) params[k] = val;
          json::Object jo{{"rank", o.rank}, {"rewrite", o.rewrite->id()}, {"params", std::move(params)},
                          {"title", o.title}};
          if (o.estimateUs >= 0) jo["estimate_us"] = o.estimateUs;
          offers.push_back(std::move(jo));
        }
        v.getAsObject()->try_emplace("offers", std::move(offers));
        v.getAsObject()->try_emplace("keep_original", r.keepOriginal);
        v.getAsObject()->try_emplace("original_rank", int64_t(r.originalRank));
        mappings.push_back(std::move(v));
      }
      model.getAsObject()->try_emplace("mappings", std::move(mappings));
      models.push_back(std::move(model));
      continue;
    }
    outs() << m.file << "\n";
    for (const Kernel &k : m.kernels)
      outs() << formatv("  kernel {0} (line {1}): {2} loops, launched by {3} site(s)\n", k.name, k.nameSpan.begin.line,
                        k.loops.size(), k.launchedBy.size());
    for (const LoopSite &l : m.loops)
      outs() << formatv("  loop line {0} in {1}: {2} over '{3}', trip count {4}{5}\n", l.span.begin.line, l.function,
                        l.kind, l.inductionVar, spelling(l.tripCount), l.iterationsIndependent() ? ", independent" : "");
    for (const LaunchSite &l : m.launches)
      outs() << formatv("  launch line {0}: {1} -> {2} ({3}), threads {4}, {5}\n", l.span.begin.line, l.parent, l.child,
                        l.deviceSide ? "device-side" : "host", l.threads.value_or("unknown"),
                        l.serializable ? "serialisable" : "not serialisable");
    for (const OfferRanking &r : advice) {
      const MappingAdvice &a = *r.advice;
      outs() << formatv("  mapping of the {0} at line {1}: {2}\n", a.target.isLaunch ? "launch" : "loop", a.target.line,
                        explainBest(a.target));
      outs() << "    advice: " << adviceSentence(r) << "\n";
    }
  }
  if (Json) outs() << formatv("{0:2}", json::Value(models.size() == 1 ? std::move(models[0]) : json::Value(std::move(models)))) << "\n";
  return anyInternalError ? ExitInternalError : rc;
}

int runLint(const std::optional<std::vector<std::string>> &compileFlags) {
  if (ListRules) {
    for (const Rule *r : allRules()) outs() << r->id() << " (" << spelling(r->defaultSeverity()) << "): " << r->summary() << "\n";
    return 0;
  }
  if (Format != "text" && Format != "json" && Format != "sarif") {
    errs() << "nestor lint: --format must be text, json or sarif, not '" << Format << "'\n";
    return 2;
  }
  std::optional<Severity> threshold;
  if (FailOn != "never") {
    threshold = parseSeverity(FailOn);
    if (!threshold) {
      errs() << "nestor lint: --fail-on must be error, warning, note or never, not '" << FailOn << "'\n";
      return 2;
    }
  }
  if (Inputs.empty() && BuildPath.empty()) {
    errs() << "nestor lint: no input files (give files, directories or globs, or -p DIR to lint the compile "
              "database's files)\n";
    return 2;
  }
  if (!BuildPath.empty() && !sys::fs::is_directory(BuildPath)) {
    errs() << "nestor lint: -p " << BuildPath << ": not a directory\n";
    return 2;
  }
  std::map<std::string, unsigned> baseline;
  if (!Baseline.empty()) {
    auto loaded = loadBaseline(Baseline);
    if (!loaded) {
      errs() << "nestor lint: " << toString(loaded.takeError()) << "\n";
      return 2;
    }
    baseline = std::move(*loaded);
  }
  LintInputOptions inputOpts;
  inputOpts.paths.assign(Inputs.begin(), Inputs.end());
  inputOpts.databaseDir = BuildPath;
  inputOpts.excludes.assign(Excludes.begin(), Excludes.end());
  if (HeaderFilter.getNumOccurrences()) inputOpts.headerFilter = HeaderFilter.getValue();
  inputOpts.flags = flagOptions(compileFlags);
  LintInputs inputs = planLintInputs(inputOpts);
  if (inputs.usageError) {
    for (const std::string &e : inputs.errors) errs() << "nestor lint: " << e << "\n";
    return 2;
  }
  const std::vector<LintTarget> &targets = inputs.targets;
  const std::vector<std::string> &inputErrors = inputs.errors;

  std::vector<FileResult> results(targets.size());
  ConfigCache configs;
  std::atomic<bool> configError{false};
  // A progress line on a terminal: "[12/302] src/k.cu", overwritten in place.
  bool progress = Progress && targets.size() > 1 && sys::Process::StandardErrIsDisplayed();
  std::mutex progressMu;
  size_t done = 0;
  {
    unsigned threads = Jobs == 0 ? 0 : Jobs.getValue();
    DefaultThreadPool pool(threads == 0 ? hardware_concurrency() : hardware_concurrency(threads));
    for (size_t i = 0; i < targets.size(); ++i) {
      pool.async([&, i] {
        FileResult &r = results[i];
        r.file = targets[i].file;
        r.includer = targets[i].includer;
        auto finish = [&] {
          if (!progress) return;
          std::lock_guard<std::mutex> l(progressMu);
          ++done;
          errs() << formatv("\r\033[K[{0}/{1}] {2}", done, targets.size(), targets[i].display);
          errs().flush();
        };
        auto cfg = configs.forFile(r.file);
        if (auto *msg = std::get_if<std::string>(&cfg)) {
          r.error = *msg;
          configError = true;
          finish();
          return;
        }
        // A crash in this file's analysis becomes its error; every other
        // file is still reported (exit code 4, internal error).
        auto crash = runRecoveringCrashes([&] {
          AnalysisOptions opts;
          opts.flags = flagOptions(compileFlags);
          opts.flags.includer = targets[i].includer;
          auto tu = analyzeFile(r.file, opts);
          if (!tu) {
            r.error = toString(tu.takeError());
            return;
          }
          r.droppedFlags = (*tu)->model().droppedFlags;
          r.fallbackHeaders = (*tu)->model().usedFallbackCudaHeaders;
          r.findings = runRules(**tu, std::get<Config>(cfg));
        });
        if (crash) {
          r.findings.clear();
          r.error = internalErrorText(r.file, *crash);
          r.internalError = true;
        }
        finish();
      });
    }
    pool.wait();
  }
  if (progress) errs() << "\r\033[K";

  std::string root = repositoryRoot(".");
  for (FileResult &r : results) addFingerprints(r, root);
  if (!WriteBaseline.empty()) {
    std::error_code ec;
    raw_fd_ostream out(WriteBaseline, ec, sys::fs::OF_Text);
    if (ec) {
      errs() << "nestor lint: --write-baseline " << WriteBaseline << ": " << ec.message() << "\n";
      return 2;
    }
    json::Array filesJson;
    size_t n = 0;
    for (const FileResult &r : results) {
      if (r.findings.empty()) continue;
      json::Array fs;
      for (size_t k = 0; k < r.findings.size(); ++k) {
        json::Value v = toJSON(r.findings[k], relativePath(r.file, root));
        v.getAsObject()->try_emplace("fingerprint", r.fingerprints[k]);
        fs.push_back(std::move(v));
        ++n;
      }
      filesJson.push_back(json::Object{{"file", relativePath(r.file, root)}, {"findings", std::move(fs)}});
    }
    out << formatv("{0:2}", json::Value(json::Object{{"version", 1}, {"files", std::move(filesJson)}})) << "\n";
    // Every finding is in the baseline just written: none is new.
    for (auto &r : results)
      for (auto &fp : r.fingerprints) ++baseline[fp];
    errs() << "nestor: wrote " << n << " finding" << (n == 1 ? "" : "s") << " to " << WriteBaseline << "\n";
  }
  // Findings in the baseline are dropped, each matching one entry.
  size_t inBaseline = 0;
  if (!Baseline.empty() || !WriteBaseline.empty()) {
    for (FileResult &r : results) {
      std::vector<Finding> kept;
      std::vector<std::string> keptFps;
      for (size_t k = 0; k < r.findings.size(); ++k) {
        auto it = baseline.find(r.fingerprints[k]);
        if (it != baseline.end() && it->second > 0) {
          --it->second;
          ++inBaseline;
          continue;
        }
        kept.push_back(std::move(r.findings[k]));
        keptFps.push_back(r.fingerprints[k]);
      }
      r.findings = std::move(kept);
      r.fingerprints = std::move(keptFps);
    }
  }

  int counts[3] = {0, 0, 0};
  bool anyError = !inputErrors.empty() || configError;
  bool anyInternalError = false;
  bool fallbackNoted = false;
  for (const std::string &e : inputErrors) errs() << "error: " << e << "\n";
  // Dropped flags: one note per run, each flag with the number of files.
  std::map<std::string, size_t> dropped;
  for (const FileResult &r : results) {
    if (r.error) {
      anyError = true;
      anyInternalError |= r.internalError;
      if (Format == "text") errs() << "error: " << *r.error << "\n";
      continue;
    }
    std::set<std::string> once(r.droppedFlags.begin(), r.droppedFlags.end());
    for (const std::string &d : once) ++dropped[d];
    if (r.fallbackHeaders && !fallbackNoted) {
      errs() << "note: no CUDA toolkit found; parsing with clang's built-in CUDA declarations\n";
      fallbackNoted = true;
    }
    for (const Finding &f : r.findings) ++counts[int(f.severity)];
  }
  if (!dropped.empty() && Format == "text") {
    std::vector<std::string> parts;
    for (auto &[flag, n] : dropped)
      parts.push_back(results.size() == 1 ? flag : formatv("{0} ({1} file{2})", flag, n, n == 1 ? "" : "s").str());
    errs() << "note: " << (results.size() == 1 ? targets[0].display + ": " : std::string())
           << "dropped flags clang does not take: " << join(parts, ", ") << "\n";
  }
  if (inputs.excluded && Format == "text")
    errs() << "note: " << inputs.excluded << " file" << (inputs.excluded == 1 ? "" : "s") << " skipped by --exclude\n";
  if (inputs.notInDatabase && Format == "text")
    errs() << "note: " << inputs.notInDatabase << " file" << (inputs.notInDatabase == 1 ? "" : "s")
           << " without an entry in the compile database skipped (headers; --header-filter REGEX lints them in "
              "their includer's context)\n";

  if (Format == "text") {
    for (size_t i = 0; i < results.size(); ++i)
      for (const Finding &f : results[i].findings) outs() << formatText(f, targets[i].display) << "\n";
    outs().flush(); // the summary goes to stderr, after the findings
    size_t total = counts[0] + counts[1] + counts[2];
    errs() << formatv("nestor: {0} {10}finding{1} ({2} error{3}, {4} warning{5}, {6} note{7}) in {8} file{9}", total,
                      total == 1 ? "" : "s", counts[2], counts[2] == 1 ? "" : "s", counts[1], counts[1] == 1 ? "" : "s",
                      counts[0], counts[0] == 1 ? "" : "s", results.size(), results.size() == 1 ? "" : "s",
                      Baseline.empty() && WriteBaseline.empty() ? "" : "new ");
    if (!Baseline.empty() || !WriteBaseline.empty()) errs() << formatv(", {0} in the baseline", inBaseline);
    errs() << "\n";
  } else if (Format == "json") {
    json::Array filesJson;
    for (const FileResult &r : results) {
      json::Array fs;
      for (size_t k = 0; k < r.findings.size(); ++k) {
        json::Value v = toJSON(r.findings[k], relativePath(r.file, root));
        v.getAsObject()->try_emplace("fingerprint", r.fingerprints[k]);
        fs.push_back(std::move(v));
      }
      json::Object o{{"file", relativePath(r.file, root)}, {"findings", std::move(fs)}};
      if (r.error) o["error"] = *r.error;
      if (!r.includer.empty()) o["includer"] = relativePath(r.includer, root);
      json::Array dropped;
      for (auto &d : r.droppedFlags) dropped.push_back(d);
      o["dropped_flags"] = std::move(dropped);
      filesJson.push_back(std::move(o));
    }
    json::Array errorsJson;
    for (auto &e : inputErrors) errorsJson.push_back(e);
    json::Object summary{{"error", counts[2]}, {"warning", counts[1]}, {"note", counts[0]}};
    if (!Baseline.empty() || !WriteBaseline.empty()) summary["in_baseline"] = int64_t(inBaseline);
    outs() << formatv("{0:2}", json::Value(json::Object{{"version", 1},
                                                        {"files", std::move(filesJson)},
                                                        {"errors", std::move(errorsJson)},
                                                        {"summary", std::move(summary)}}))
           << "\n";
  } else {
    json::Value sarif = toSarif(results, root);
    // With a baseline every result shown is new (SARIF baselineState).
    if (!Baseline.empty() || !WriteBaseline.empty())
      if (auto *runs = sarif.getAsObject()->getArray("runs"))
        for (auto &run : *runs)
          if (auto *res = run.getAsObject()->getArray("results"))
            for (auto &r : *res) r.getAsObject()->try_emplace("baselineState", "new");
    outs() << formatv("{0:2}", sarif) << "\n";
  }

  if (anyInternalError) return ExitInternalError;
  if (anyError) return 2;
  if (threshold)
    for (int s = int(*threshold); s <= 2; ++s)
      if (counts[s] > 0) return 1;
  return 0;
}

} // namespace

Expected<MappingConfig> mappingConfigFor(const AnalyzedTU &tu) {
  const FileModel &m = tu.model();
  MappingConfig cfg;
  if (auto path = findConfigFor(m.file)) {
    auto config = loadConfig(*path);
    if (!config) return config.takeError();
    cfg = config->mapping;
  }
  addResourceUsage(cfg, tu);
  return cfg;
}

void addResourceUsage(MappingConfig &cfg, const AnalyzedTU &tu) {
  const FileModel &m = tu.model();
  // Only files with something to map pay for nvcc; device launches need -rdc.
  bool rdc = std::any_of(m.launches.begin(), m.launches.end(), [](const LaunchSite &l) { return l.deviceSide; });
  bool nested = rdc || std::any_of(m.loops.begin(), m.loops.end(), [](const LoopSite &l) { return l.inKernel; });
  if (!ResourceUsage || !nested) return;
  auto nvcc = findNvcc();
  if (!nvcc) {
    cfg.registersNote = "no nvcc found for ptxas's figures";
    return;
  }
  std::string arch = GpuArch.empty() ? "sm_90" : GpuArch.getValue();
  auto res = ptxasResources(*nvcc, m.file, m.compileFlags, rdc, arch);
  if (!res) {
    cfg.registersNote = toString(res.takeError());
    return;
  }
  for (auto &[kernel, r] : *res) cfg.registersByKernel[kernel] = r.registers;
}

int run(int argc, const char *const *argv, const std::optional<std::vector<std::string>> &compileFlags) {
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](raw_ostream &os) { os << "nestor " NESTOR_VERSION " (LLVM " LLVM_VERSION_STRING ")\n"; });
  std::string err;
  raw_string_ostream errStream(err);
  if (!cl::ParseCommandLineOptions(argc, argv, "Nestor: nested-parallelism advisor for CUDA\n", &errStream)) {
    errs() << errStream.str();
    return 2;
  }
  if (RuntimeDir) {
    outs() << runtimeIncludeDir() << "\n";
    return 0;
  }
  if (AnalyzeCmd) return runAnalyze(compileFlags);
  if (LintCmd) return runLint(compileFlags);
  if (RewriteCmd) return runRewrite(compileFlags);
  if (LspCmd) return runLsp();
  if (ProfileCmd) return runProfile(compileFlags);
  errs() << "nestor: give a subcommand: analyze, lint, rewrite, lsp or profile (see --help)\n";
  return 2;
}

} // namespace nestor::cli
