#include "Commands.h"
#include "Options.h"

#include "nestor/Analysis.h"
#include "nestor/CrashRecovery.h"
#include "nestor/Lint.h"
#include "nestor/MappingAdvisor.h"
#include "nestor/ResourceUsage.h"
#include "nestor/ModelJson.h"
#include "nestor/Rule.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
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

bool hasGlobChars(StringRef s) { return s.find_first_of("*?[") != StringRef::npos; }

void collectDir(StringRef dir, std::vector<std::string> &out, std::error_code &ec) {
  for (sys::fs::recursive_directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    if (it->type() == sys::fs::file_type::directory_file && name.starts_with(".")) {
      it.no_push();
      continue;
    }
    if (isCudaSourcePath(it->path())) out.push_back(it->path());
  }
}

// Files, directories (recursively, .cu/.cuh) and globs. Missing inputs are
// returned as errors so every other file is still analysed.
void expandInputs(const std::vector<std::string> &inputs, std::vector<std::string> &files,
                  std::vector<std::string> &errors) {
  for (const std::string &in : inputs) {
    if (hasGlobChars(in)) {
      // The directory part before the first glob character is walked.
      size_t g = in.find_first_of("*?[");
      size_t slash = in.rfind('/', g);
      std::string base = slash == std::string::npos ? "." : in.substr(0, slash == 0 ? 1 : slash);
      auto pattern = GlobPattern::create(in);
      if (!pattern) {
        errors.push_back(in + ": invalid glob: " + toString(pattern.takeError()));
        continue;
      }
      std::vector<std::string> candidates;
      std::error_code ec;
      for (sys::fs::recursive_directory_iterator it(base, ec), end; it != end && !ec; it.increment(ec)) {
        std::string p = it->path();
        if (base == "." && StringRef(p).starts_with("./") && !StringRef(in).starts_with("./")) p = p.substr(2);
        if (it->type() != sys::fs::file_type::directory_file && pattern->match(p)) candidates.push_back(it->path());
      }
      if (candidates.empty()) errors.push_back(in + ": no files match");
      std::sort(candidates.begin(), candidates.end());
      files.insert(files.end(), candidates.begin(), candidates.end());
      continue;
    }
    if (sys::fs::is_directory(in)) {
      std::vector<std::string> found;
      std::error_code ec;
      collectDir(in, found, ec);
      if (ec) errors.push_back(in + ": " + ec.message());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
      continue;
    }
    files.push_back(in); // checked (and reported) by the analysis
  }
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
  for (const std::string &file : Inputs) {
    // The analysis and the mapping advice run under crash recovery: a crash
    // is reported for this file and the next one is analysed (exit code 4).
    std::unique_ptr<AnalyzedTU> tu;
    std::optional<std::string> failed;
    std::vector<MappingAdvice> advice;
    auto crash = runRecoveringCrashes([&] {
      AnalysisOptions opts;
      opts.flags = flagOptions(compileFlags);
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
      for (const LoopSite &l : tu->model().loops)
        if (auto a = adviseMappings(*tu, *mappingConfig, {RewriteTarget::Kind::Loop, l.id})) advice.push_back(std::move(*a));
      for (const LaunchSite &l : tu->model().launches)
        if (auto a = adviseMappings(*tu, *mappingConfig, {RewriteTarget::Kind::Launch, l.id})) advice.push_back(std::move(*a));
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
      for (const MappingAdvice &a : advice) mappings.push_back(toJSON(a));
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
    for (const MappingAdvice &a : advice) {
      outs() << formatv("  mapping of the {0} at line {1}: {2}\n", a.target.isLaunch ? "launch" : "loop", a.target.line,
                        explainBest(a.target));
      if (auto [r, re] = a.bestRealisable(); r)
        outs() << formatv("    best a rewrite makes: #{0} {1} ({2}{3})\n", r->rank, r->mapping->id, re->command(),
                          re->note.empty() ? "" : ", " + re->note);
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
  if (Inputs.empty()) {
    errs() << "nestor lint: no input files (give files, directories or globs)\n";
    return 2;
  }
  if (!BuildPath.empty() && !sys::fs::is_directory(BuildPath)) {
    errs() << "nestor lint: -p " << BuildPath << ": not a directory\n";
    return 2;
  }
  std::vector<std::string> files, inputErrors;
  expandInputs(std::vector<std::string>(Inputs.begin(), Inputs.end()), files, inputErrors);

  std::vector<FileResult> results(files.size());
  ConfigCache configs;
  std::atomic<bool> configError{false};
  {
    unsigned threads = Jobs == 0 ? 0 : Jobs.getValue();
    DefaultThreadPool pool(threads == 0 ? hardware_concurrency() : hardware_concurrency(threads));
    for (size_t i = 0; i < files.size(); ++i) {
      pool.async([&, i] {
        FileResult &r = results[i];
        r.file = files[i];
        auto cfg = configs.forFile(files[i]);
        if (auto *msg = std::get_if<std::string>(&cfg)) {
          r.error = *msg;
          configError = true;
          return;
        }
        // A crash in this file's analysis becomes its error; every other
        // file is still reported (exit code 4, internal error).
        auto crash = runRecoveringCrashes([&] {
          AnalysisOptions opts;
          opts.flags = flagOptions(compileFlags);
          auto tu = analyzeFile(files[i], opts);
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
          r.error = internalErrorText(files[i], *crash);
          r.internalError = true;
        }
      });
    }
    pool.wait();
  }

  int counts[3] = {0, 0, 0};
  bool anyError = !inputErrors.empty() || configError;
  bool anyInternalError = false;
  bool fallbackNoted = false;
  for (const std::string &e : inputErrors) errs() << "error: " << e << "\n";
  std::string root = repositoryRoot(".");
  for (const FileResult &r : results) {
    if (r.error) {
      anyError = true;
      anyInternalError |= r.internalError;
      if (Format == "text") errs() << "error: " << *r.error << "\n";
      continue;
    }
    if (!r.droppedFlags.empty() && Format == "text")
      errs() << "note: " << r.file << ": dropped flags clang does not take: " << join(r.droppedFlags, ", ") << "\n";
    if (r.fallbackHeaders && !fallbackNoted) {
      errs() << "note: no CUDA toolkit found; parsing with clang's built-in CUDA declarations\n";
      fallbackNoted = true;
    }
    for (const Finding &f : r.findings) ++counts[int(f.severity)];
  }

  if (Format == "text") {
    for (const FileResult &r : results)
      for (const Finding &f : r.findings) outs() << formatText(f, r.file) << "\n";
    outs().flush(); // the summary goes to stderr, after the findings
    size_t total = counts[0] + counts[1] + counts[2];
    errs() << formatv("nestor: {0} finding{1} ({2} error{3}, {4} warning{5}, {6} note{7}) in {8} file{9}\n", total,
                      total == 1 ? "" : "s", counts[2], counts[2] == 1 ? "" : "s", counts[1], counts[1] == 1 ? "" : "s",
                      counts[0], counts[0] == 1 ? "" : "s", results.size(), results.size() == 1 ? "" : "s");
  } else if (Format == "json") {
    json::Array filesJson;
    for (const FileResult &r : results) {
      json::Array fs;
      for (const Finding &f : r.findings) fs.push_back(toJSON(f, relativePath(r.file, root)));
      json::Object o{{"file", relativePath(r.file, root)}, {"findings", std::move(fs)}};
      if (r.error) o["error"] = *r.error;
      json::Array dropped;
      for (auto &d : r.droppedFlags) dropped.push_back(d);
      o["dropped_flags"] = std::move(dropped);
      filesJson.push_back(std::move(o));
    }
    json::Array errorsJson;
    for (auto &e : inputErrors) errorsJson.push_back(e);
    outs() << formatv("{0:2}", json::Value(json::Object{
                                   {"version", 1},
                                   {"files", std::move(filesJson)},
                                   {"errors", std::move(errorsJson)},
                                   {"summary", json::Object{{"error", counts[2]}, {"warning", counts[1]}, {"note", counts[0]}}}}))
           << "\n";
  } else {
    outs() << formatv("{0:2}", toSarif(results, root)) << "\n";
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
    outs() << NESTOR_RUNTIME_INCLUDE_DIR << "\n";
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
