// Writing a plan (docs/profile-planner.md): the checked `profile:`
// configuration, the variant sources composed from the candidates' rewrites,
// the runtime headers, and plan.json for nestor-runner. The candidates
// themselves and their static order are in Planner.cpp.
#include "nestor/planner/Planner.h"

#include "nestor/Lint.h"
#include "nestor/planner/Compose.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unistd.h>

#ifndef NESTOR_RUNTIME_INCLUDE_DIR
#define NESTOR_RUNTIME_INCLUDE_DIR ""
#endif

namespace fs = std::filesystem;

namespace nestor::planner {

namespace {
llvm::Error fail(const llvm::Twine &message) { return llvm::createStringError(llvm::inconvertibleErrorCode(), message); }
} // namespace

namespace {

/// The runner compares every output in one format; infer it from the names.
llvm::Expected<std::string> outputFormat(const std::vector<std::string> &outputs) {
  std::map<std::string, std::vector<std::string>> by;
  for (const std::string &o : outputs) {
    llvm::StringRef ext = llvm::sys::path::extension(o);
    std::string f = ext == ".f32" ? "f32" : ext == ".f64" ? "f64" : (ext == ".bin" || ext == ".raw" || ext == ".dat") ? "bytes" : "text";
    by[f].push_back(o);
  }
  if (by.size() > 1) {
    std::string detail;
    for (const auto &[f, names] : by) detail += (detail.empty() ? "" : "; ") + f + ": " + llvm::join(names, ", ");
    return fail("profile.outputs mix formats (" + detail +
                "); nestor-runner compares all outputs in one format (.f32, .f64, .bin/.raw/.dat = bytes, else text)");
  }
  return by.empty() ? std::string("text") : by.begin()->first;
}

bool isInside(const fs::path &inner, const fs::path &outer) {
  auto mismatch = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return mismatch.first == outer.end();
}

llvm::Error writeText(const fs::path &path, llvm::StringRef text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return fail("cannot create " + path.parent_path().string() + ": " + ec.message());
  // LLVM's writer goes through a temporary file renamed on success: a plan is
  // never left with a half-written file.
  return llvm::writeToOutput(path.string(), [&](llvm::raw_ostream &os) {
    os << text;
    return llvm::Error::success();
  });
}

/// True when the first word of the build command is a compiler driver, to
/// which " {flags}" can be appended safely.
bool startsWithCompiler(const std::string &command) {
  llvm::StringRef first = llvm::StringRef(command).ltrim().split(' ').first;
  llvm::StringRef name = llvm::sys::path::filename(first);
  return name == "nvcc" || name == "clang++" || name == "clang" || name == "g++" || name == "c++" || name == "gcc";
}

} // namespace

llvm::Expected<PlanOutput> writePlan(const AnalyzedTU &tu, const AnalysisOptions &opts, const CandidateList &list,
                                     const PlanRequest &req) {
  const ProfileConfig &p = req.profile;
  if (llvm::Error err = checkProfileConfig(p, req.configPath, tu.mainFile())) return std::move(err);
  std::error_code ec;
  fs::path project = fs::weakly_canonical(fs::absolute(req.projectDir, ec), ec);
  if (ec || !fs::is_directory(project)) return fail("project directory '" + req.projectDir + "' does not exist");
  fs::path source = fs::weakly_canonical(fs::absolute(tu.mainFile()), ec);
  if (!isInside(source, project))
    return fail(tu.mainFile() + " is not inside the project directory " + project.string() +
                " (the directory nestor-runner copies for each variant); pass --project DIR");
  fs::path sourceRel = source.lexically_relative(project);
  fs::path planDir = fs::weakly_canonical(fs::absolute(req.planDir), ec);
  if (isInside(planDir, project))
    return fail("the plan directory " + planDir.string() + " is inside the project directory " + project.string() +
                ": nestor-runner would copy the plan, its variants and its cache into every variant; choose a plan "
                "directory outside it");
  auto format = outputFormat(p.outputs);
  if (!format) return format.takeError();
  std::vector<std::string> warnings;
  if (*format == "bytes" && p.tolerance > 0)
    warnings.push_back(llvm::join(p.outputs, ", ") + " are compared byte for byte, so tolerance " +
                       std::to_string(p.tolerance) + " does not apply; name float outputs *.f32 or *.f64 (raw "
                       "little-endian arrays) to compare them within the tolerance");
  std::string timingMode = req.timingMode;
  if (timingMode.empty()) timingMode = llvm::sys::Process::GetEnv("NESTOR_RUNNER_ASSUME_DEVICES") ? "wall_clock" : "cupti";
  if (timingMode != "cupti" && timingMode != "wall_clock")
    return fail("timing mode must be cupti or wall_clock, got '" + timingMode + "'");

  fs::create_directories(planDir, ec);
  if (ec) return fail("cannot create the plan directory " + planDir.string() + ": " + ec.message());
  // variants/ and runtime/ belong to the planner: start them afresh so that no
  // stale source of an earlier plan is left next to this one.
  fs::remove_all(planDir / "variants", ec);
  fs::remove_all(planDir / "runtime", ec);

  PlanOutput out;
  out.planPath = (planDir / "plan.json").string();
  out.warnings = std::move(warnings);
  const std::string fileName = sourceRel.filename().string();

  // Runtime headers the rewritten code includes (<nestor/...cuh>), copied
  // into the plan so that it is complete on another machine.
  bool runtimeCopied = false;
  std::vector<std::string> runtimeHeaders;
  auto copyRuntime = [&]() -> llvm::Error {
    if (runtimeCopied) return llvm::Error::success();
    fs::path from = fs::path(req.runtimeIncludeDir) / "nestor";
    if (req.runtimeIncludeDir.empty() || !fs::is_directory(from))
      return fail("the Nestor runtime headers (nestor/*.cuh) are not in '" + req.runtimeIncludeDir +
                  "'; set NESTOR_RUNTIME_DIR to the directory that holds nestor/");
    fs::create_directories(planDir / "runtime" / "nestor", ec);
    for (const auto &e : fs::directory_iterator(from)) {
      if (!e.is_regular_file() || e.path().extension() != ".cuh") continue;
      fs::copy_file(e.path(), planDir / "runtime" / "nestor" / e.path().filename(), fs::copy_options::overwrite_existing, ec);
      if (ec) return fail("cannot copy " + e.path().string() + ": " + ec.message());
      runtimeHeaders.push_back(e.path().filename().string());
    }
    std::sort(runtimeHeaders.begin(), runtimeHeaders.end());
    runtimeCopied = true;
    return llvm::Error::success();
  };

  nlohmann::json variants = nlohmann::json::array();
  {
    // The baseline is the text that was analysed (an editor's unsaved buffer
    // included), so that every variant differs from it by its rewrites only.
    fs::path rel = fs::path("variants") / "baseline" / fileName;
    if (llvm::Error err = writeText(planDir / rel, tu.mainFileText())) return std::move(err);
    variants.push_back({{"id", "baseline"},
                        {"baseline", true},
                        {"source", sourceRel.generic_string()},
                        {"files", {{sourceRel.generic_string(), rel.generic_string()}}},
                        {"description", "the file as analysed"},
                        {"params",
                         {{"estimate_us", list.originalUs},
                          {"keep_original", list.keepOriginal},
                          {"static_rank", list.originalRank}}}});
  }

  // Generation order: with a budget, the static order until enough variants
  // were generated; without one, every candidate, grouped by target and
  // chain prefix so that chains share their intermediate analyses.
  std::vector<const Candidate *> order;
  for (const Candidate &c : list.candidates) order.push_back(&c);
  const bool all = req.budget == 0 || req.budget >= list.candidates.size();
  auto chainKey = [](const Candidate &c) {
    std::string k = std::to_string(int(c.target.kind)) + ":" + std::to_string(c.target.id);
    for (const CandidateStep &s : c.steps) {
      k += "|" + s.rewrite;
      for (const auto &[n, v] : s.params) k += ";" + n + "=" + v;
    }
    return k;
  };
  if (all) std::stable_sort(order.begin(), order.end(), [&](const Candidate *a, const Candidate *b) { return chainKey(*a) < chainKey(*b); });

  std::map<std::string, ComposeMemo> memos; // per target
  PreambleCache preambles;
  std::vector<std::pair<const Candidate *, std::string>> generated; // candidate, its text
  std::vector<std::pair<Candidate, std::string>> dropped;
  for (const Candidate *c : order) {
    if (req.cancelled && req.cancelled->load()) return fail("cancelled");
    if (!all && generated.size() >= req.budget) break;
    std::vector<ComposeStep> steps;
    for (const CandidateStep &s : c->steps) steps.push_back({findRewrite(s.rewrite), s.params});
    if (std::any_of(steps.begin(), steps.end(), [](const ComposeStep &s) { return !s.rewrite; })) {
      dropped.push_back({*c, "unknown rewrite"});
      continue;
    }
    if (req.progress) req.progress("generating " + c->id);
    RewriteTarget target = c->target;
    std::string memoKey = std::to_string(int(target.kind)) + ":" + std::to_string(target.id);
    auto composed = composeRewrites(
        tu, opts, steps,
        [target](const FileModel &, RewriteTarget::Kind kind) -> std::optional<RewriteTarget> {
          if (kind == target.kind) return target;
          return std::nullopt;
        },
        &preambles, c->steps.size() > 1 ? &memos[memoKey] : nullptr);
    if (!composed) {
      std::string why = llvm::toString(composed.takeError());
      dropped.push_back({*c, why});
      continue;
    }
    generated.push_back({c, std::move(composed->text)});
  }
  if (!all) {
    // Candidates the budget never reached.
    size_t reached = 0;
    for (const Candidate *c : order) {
      bool done = std::any_of(generated.begin(), generated.end(), [&](const auto &g) { return g.first == c; }) ||
                  std::any_of(dropped.begin(), dropped.end(), [&](const auto &d) { return d.first.id == c->id; });
      if (done) ++reached;
    }
    out.notTried = list.candidates.size() - reached;
  }
  std::sort(generated.begin(), generated.end(), [](const auto &a, const auto &b) { return a.first->order < b.first->order; });
  std::sort(dropped.begin(), dropped.end(), [](const auto &a, const auto &b) { return a.first.order < b.first.order; });

  bool needFlags = false;
  for (const auto &[c, text] : generated) {
    fs::path rel = fs::path("variants") / c->id / fileName;
    if (llvm::Error err = writeText(planDir / rel, text)) return std::move(err);
    nlohmann::json files = {{sourceRel.generic_string(), rel.generic_string()}};
    std::string flags;
    if (llvm::StringRef(text).contains("<nestor/")) {
      if (llvm::Error err = copyRuntime()) return std::move(err);
      for (const std::string &h : runtimeHeaders)
        files[".nestor-runtime/nestor/" + h] = (fs::path("runtime") / "nestor" / h).generic_string();
      flags = "-I.nestor-runtime";
      needFlags = true;
    }
    nlohmann::json chain = nlohmann::json::array();
    for (const CandidateStep &s : c->steps) {
      nlohmann::json params = nlohmann::json::object();
      for (const auto &[k, v] : s.params) params[k] = v;
      chain.push_back({{"rewrite", s.rewrite}, {"params", params}});
    }
    nlohmann::json v = {{"id", c->id},
                        {"source", sourceRel.generic_string()},
                        {"files", files},
                        {"description", c->title + " (" + c->where + ")"},
                        {"params",
                         {{"chain", chain},
                          {"target", {{"kind", c->target.kind == RewriteTarget::Kind::Loop ? "loop" : "launch"},
                                      {"line", c->line},
                                      {"kernel", c->kernel}}},
                          {"static_rank", c->order + 1},
                          {"mapping", c->mapping.empty() ? nlohmann::json(nullptr)
                                                         : nlohmann::json{{"id", c->mapping},
                                                                          {"rank", c->mappingRank},
                                                                          {"score", c->mappingScore}}},
                          {"estimate_us", c->estimateUs < 0 ? nlohmann::json(nullptr)
                                                            : nlohmann::json(list.originalUs + c->estimateUs - c->originalUs)},
                          {"rewrite_command", c->rewriteCommand(sourceRel.generic_string())}}}};
    if (!flags.empty()) v["flags"] = flags;
    variants.push_back(std::move(v));
    out.kept.push_back(*c);
  }
  out.dropped = std::move(dropped);

  std::string build = p.build;
  if (needFlags && build.find("{flags}") == std::string::npos) {
    if (!startsWithCompiler(build))
      return fail("profile.build has no {flags} placeholder, and rewritten variants need '-I.nestor-runtime' for the "
                  "Nestor runtime headers; add {flags} to the build command (e.g. nvcc ... {defines} {flags} {source})");
    build += " {flags}";
  }

  nlohmann::json check = {{"format", *format}, {"rel_tolerance", p.tolerance}, {"abs_tolerance", p.tolerance}};
  if (!p.outputs.empty()) check["outputs"] = p.outputs;
  if (!llvm::StringRef(p.check).trim().empty()) check["command"] = p.check;
  nlohmann::json timing = {{"mode", timingMode}, {"serialize_kernels", list.usesDeviceLaunches}, {"warmup_runs", 1}};
  if (p.repetitions > 0) {
    timing["max_samples"] = p.repetitions;
    timing["min_samples"] = std::min(5u, p.repetitions);
  }
  fs::path projectInPlan = req.relativeProjectDir ? project.lexically_relative(planDir) : project;
  if (projectInPlan.empty()) projectInPlan = project;
  // Like project_dir, the configuration is named relative to the plan when
  // the plan is meant to travel.
  std::string configShown = req.configPath.empty() ? std::string("no .nestor.yaml") : req.configPath;
  if (req.relativeProjectDir && !req.configPath.empty())
    configShown = fs::weakly_canonical(fs::absolute(req.configPath), ec).lexically_relative(planDir).generic_string();
  std::string comment = "Generated by nestor profile from " + sourceRel.generic_string() + " (kernels: " +
                        (list.kernels.empty() ? std::string("none") : llvm::join(list.kernels, ", ")) + ") with " +
                        configShown + "; " +
                        std::to_string(out.kept.size()) + " of " + std::to_string(list.candidates.size()) +
                        " candidates" + (req.budget ? " (budget " + std::to_string(req.budget) + ")" : "") +
                        ". Regenerate it rather than editing it.";
  nlohmann::json plan = {{"comment", comment},
                         {"schema_version", 1},
                         {"project_dir", projectInPlan.generic_string()},
                         {"build", {{"command", build}, {"timeout_s", 600}}},
                         {"run", {{"command", p.run}, {"timeout_s", p.timeoutSeconds ? p.timeoutSeconds : 120}}},
                         {"check", check},
                         {"timing", timing},
                         {"variants", variants}};
  if (llvm::Error err = writeText(out.planPath, plan.dump(2) + "\n")) return std::move(err);
  out.plan = std::move(plan);
  return out;
}

std::string defaultPlanDir(const std::string &file, const std::string &kernel) {
  llvm::SmallString<256> abs(file);
  llvm::sys::fs::make_absolute(abs);
  std::string base;
  if (auto xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME"); xdg && !xdg->empty()) base = *xdg;
  else if (auto home = llvm::sys::Process::GetEnv("HOME"); home && !home->empty()) base = *home + "/.cache";
  else base = (fs::temp_directory_path() / ("nestor-" + std::to_string(::getuid()))).string();
  std::string stem = sanitizeId(llvm::sys::path::stem(file).str()) + (kernel.empty() ? "" : "-" + sanitizeId(kernel));
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", (unsigned long long)llvm::xxh3_64bits(abs.str()));
  return base + "/nestor/profile/" + stem + "-" + std::string(hash).substr(0, 12);
}

std::string runtimeIncludeDir() {
  // NESTOR_RUNTIME_DIR overrides; otherwise the one resolver of the binary's
  // runtime folder (build tree or install, CompileFlags.h).
  if (auto env = llvm::sys::Process::GetEnv("NESTOR_RUNTIME_DIR"); env && !env->empty()) return *env;
  return nestor::runtimeIncludeDir();
}

} // namespace nestor::planner
