#include "nestor/planner/Planner.h"

#include "nestor/Lint.h"
#include "nestor/planner/Compose.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
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

// ---- the static order --------------------------------------------------------
//
// There is no mapping advisor yet, so "most promising" is a fixed order taken
// from the papers' measurements (docs/profile-planner.md explains each entry).

/// Rewrites that change no generated code (an annotation): timing them would
/// measure the baseline again.
bool annotationOnly(const std::string &rewrite) { return rewrite == "np-pragma"; }

/// Composition chains of the device-launch rewrites, in the thesis' order of
/// application (§3.3), and the family order for launches: T+C+A is the
/// thesis' best (43.0x over CDP), T alone 13.4x, A alone 12.1x, C only helps
/// together with A or T (Fig. 5.1-5.3).
const std::vector<std::vector<std::string>> &launchChains() {
  static const std::vector<std::vector<std::string>> chains = {
      {"threshold", "coarsen", "aggregate"}, {"threshold", "aggregate"}, {"coarsen", "aggregate"}, {"threshold", "coarsen"}};
  return chains;
}
const std::vector<std::string> &launchFamilyOrder() {
  static const std::vector<std::string> order = {"threshold+coarsen+aggregate", "threshold+aggregate", "threshold",
                                                 "aggregate", "coarsen+aggregate", "threshold+coarsen", "coarsen"};
  return order;
}
/// Loop families: CTE and sub-warp decomposition target irregular inner
/// loops (their papers' workloads); CUDA-NP targets loops whose trip count
/// is the same for the threads of a block.
std::vector<std::string> loopFamilyOrder(TripCountClass trips) {
  if (trips == TripCountClass::Irregular) return {"subwarp", "cte", "np"};
  return {"np", "subwarp", "cte"};
}

unsigned familyRank(const std::string &family, const std::vector<std::string> &order) {
  auto it = std::find(order.begin(), order.end(), family);
  return it == order.end() ? unsigned(order.size() + 100) : unsigned(it - order.begin());
}

/// The value of each parameter tried first: the papers' best where they
/// name one, the pragma's clause for CUDA-NP, else the rewrite's default.
std::optional<std::string> preferredValue(const Rewrite &r, const ParamSpec &spec, const FileModel &m, const RewriteTarget &t) {
  const std::string id = r.id();
  if (id == "aggregate" && spec.name == "granularity") return "grid"; // thesis §5.3: the highest granularity wins
  if (id == "threshold" && spec.name == "threshold") return "128";    // an interior value: §5.3 rises then falls
  if (id == "coarsen" && spec.name == "factor") return "2";           // §5.4: small factors help, large ones hurt
  if (id == "np" && t.kind == RewriteTarget::Kind::Loop && size_t(t.id) < m.loops.size()) {
    const LoopSite &loop = m.loops[size_t(t.id)];
    const NpPragma *pragma = loop.pragma >= 0 && size_t(loop.pragma) < m.pragmas.size() ? &m.pragmas[size_t(loop.pragma)] : nullptr;
    if (spec.name == "slaves") return pragma && pragma->numThreads ? std::to_string(*pragma->numThreads) : "4";
    if (spec.name == "np_type") {
      if (pragma && pragma->npType == NpType::Intra) return "intra";
      return "inter";
    }
  }
  if (!spec.defaultValue.empty()) return spec.defaultValue;
  return std::nullopt;
}

/// Distance of a variant from the preferred one: for each parameter that
/// varies across variants(), how many places its value is from the preferred
/// value in the order the rewrite lists its values.
unsigned parameterDistance(const Rewrite &r, const RewriteParams &resolved, const std::vector<RewriteParams> &grid,
                           const FileModel &m, const RewriteTarget &t) {
  unsigned distance = 0;
  for (const ParamSpec &spec : r.params()) {
    std::vector<std::string> values;
    for (const RewriteParams &v : grid) {
      auto it = v.find(spec.name);
      if (it != v.end() && std::find(values.begin(), values.end(), it->second) == values.end()) values.push_back(it->second);
    }
    if (values.size() < 2) continue;
    auto mine = resolved.find(spec.name);
    if (mine == resolved.end()) continue;
    auto at = std::find(values.begin(), values.end(), mine->second);
    if (at == values.end()) continue;
    size_t pos = size_t(at - values.begin()), pref = 0;
    if (auto p = preferredValue(r, spec, m, t)) {
      auto pat = std::find(values.begin(), values.end(), *p);
      if (pat != values.end()) pref = size_t(pat - values.begin());
    }
    distance += unsigned(pos > pref ? pos - pref : pref - pos);
  }
  return distance;
}

std::string sanitizeId(const std::string &s) {
  std::string out;
  for (char c : s) out += (llvm::isAlnum(c) || c == '_' || c == '.' || c == '+' || c == '-') ? c : '_';
  return out;
}

/// "threshold-128": the values of the parameters that vary across the
/// rewrite's variants, in parameter order.
std::string stepLabel(const Rewrite &r, const RewriteParams &resolved, const std::vector<RewriteParams> &grid) {
  std::string label = r.id();
  for (const ParamSpec &spec : r.params()) {
    std::set<std::string> values;
    for (const RewriteParams &v : grid)
      if (auto it = v.find(spec.name); it != v.end()) values.insert(it->second);
    if (values.size() < 2) continue;
    if (auto it = resolved.find(spec.name); it != resolved.end()) label += "-" + it->second;
  }
  return sanitizeId(label);
}

struct Target {
  RewriteTarget target;
  std::string kernel;
  unsigned line = 0;
  std::string where;
  TripCountClass trips = TripCountClass::Unknown;
};

std::vector<Target> targetsOf(const FileModel &m, const Kernel &k) {
  std::vector<Target> out;
  for (int id : k.loops) {
    if (id < 0 || size_t(id) >= m.loops.size()) continue;
    const LoopSite &l = m.loops[size_t(id)];
    out.push_back({{RewriteTarget::Kind::Loop, id}, k.name, l.span.begin.line,
                   "loop at line " + std::to_string(l.span.begin.line) + " in " + l.function, l.tripCount});
  }
  for (const LaunchSite &l : m.launches) {
    // Launches inside the kernel, and device-side launches of it.
    if (l.parent != k.name && !(l.deviceSide && l.child == k.name)) continue;
    out.push_back({{RewriteTarget::Kind::Launch, l.id}, k.name, l.span.begin.line,
                   "launch of " + l.child + " in " + l.parent + ", line " + std::to_string(l.span.begin.line),
                   TripCountClass::Unknown});
  }
  return out;
}

std::string joinTitles(const std::vector<CandidateStep> &steps) {
  std::string t;
  for (const CandidateStep &s : steps) {
    const Rewrite *r = findRewrite(s.rewrite);
    t += (t.empty() ? "" : " + ") + (r ? r->title(s.params) : s.rewrite);
  }
  return t;
}

} // namespace

const char *staticOrderDescription() {
  return "candidates are ordered by (1) parameter distance: the sum over the chain's rewrites of how far each parameter "
         "is from its preferred value (aggregate: grid granularity; threshold: 128; coarsen: factor 2; CUDA-NP: the "
         "pragma's num_threads/np_type, else 4 slaves inter-warp; otherwise the rewrite's default), then (2) family: "
         "launches T+C+A, T+A, T, A, C+A, T+C, C (thesis Fig. 5.1-5.3); loops with irregular trip counts sub-warp, CTE, "
         "CUDA-NP, other loops CUDA-NP, sub-warp, CTE; then (3) the target's position in the file. --budget N keeps the "
         "first N that could be generated.";
}

std::string Candidate::rewriteCommand(const std::string &file) const {
  std::string cmd = "nestor rewrite " + file + " --at " + std::to_string(line) + " --apply ";
  for (size_t i = 0; i < steps.size(); ++i) cmd += (i ? "," : "") + steps[i].rewrite;
  std::map<std::string, std::string> params;
  for (const CandidateStep &s : steps) params.insert(s.params.begin(), s.params.end());
  for (const auto &[k, v] : params)
    if (!v.empty()) cmd += " --param " + k + "=" + v;
  return cmd;
}

llvm::Expected<CandidateList> listCandidates(const AnalyzedTU &tu, const Config &config, const std::string &kernel) {
  const FileModel &m = tu.model();
  CandidateList list;
  std::vector<const Kernel *> kernels;
  auto globalNames = [&] {
    std::vector<std::string> names;
    for (const Kernel &k : m.kernels)
      if (k.isGlobal && k.span.file == m.file) names.push_back(k.name);
    return names.empty() ? std::string("none") : llvm::join(names, ", ");
  };
  if (!kernel.empty()) {
    const Kernel *k = m.findKernel(kernel);
    if (!k) return fail("no kernel named '" + kernel + "' in " + m.file + " (kernels: " + globalNames() + ")");
    kernels.push_back(k);
  } else {
    std::vector<Finding> findings = runRules(tu, config);
    for (const Kernel &k : m.kernels) {
      if (!k.isGlobal || k.span.file != m.file) continue;
      bool has = std::any_of(findings.begin(), findings.end(), [&](const Finding &f) {
        return f.span.file == k.span.file && k.span.begin.offset <= f.span.begin.offset && f.span.begin.offset <= k.span.end.offset;
      });
      if (has) kernels.push_back(&k);
    }
  }
  for (const Kernel *k : kernels) list.kernels.push_back(k->name);
  list.usesDeviceLaunches = std::any_of(m.launches.begin(), m.launches.end(), [](const LaunchSite &l) { return l.deviceSide; });

  std::set<std::string> noted;
  std::vector<Target> targets;
  for (const Kernel *k : kernels)
    for (Target &t : targetsOf(m, *k)) {
      bool seen = std::any_of(targets.begin(), targets.end(), [&](const Target &o) {
        return o.target.kind == t.target.kind && o.target.id == t.target.id;
      });
      if (!seen) targets.push_back(std::move(t));
    }

  struct Listed {
    Candidate c;
    size_t targetIndex;
    size_t enumeration;
  };
  std::vector<Listed> listed;
  for (size_t ti = 0; ti < targets.size(); ++ti) {
    const Target &t = targets[ti];
    const bool launch = t.target.kind == RewriteTarget::Kind::Launch;
    std::vector<std::string> order = launch ? launchFamilyOrder() : loopFamilyOrder(t.trips);
    // Single rewrites, and which variants of each apply (chains start there).
    std::map<std::string, std::vector<std::pair<RewriteParams, unsigned>>> applicable;
    for (const Rewrite *r : allRewrites()) {
      if (r->targetKind() != t.target.kind) continue;
      if (annotationOnly(r->id())) {
        bool applies = false;
        for (const RewriteParams &v : r->variants())
          if (auto resolved = resolveParams(*r, v)) applies |= r->prepare(tu, t.target, *resolved).applies;
          else llvm::consumeError(resolved.takeError());
        if (applies && noted.insert(r->id()).second)
          list.notes.push_back(std::string(r->id()) + " is not timed: it only annotates the source, so its variant would "
                                                      "measure the baseline again");
        continue;
      }
      std::vector<RewriteParams> grid = r->variants();
      for (const RewriteParams &v : grid) {
        auto resolved = resolveParams(*r, v);
        if (!resolved) {
          llvm::consumeError(resolved.takeError());
          continue;
        }
        if (!r->prepare(tu, t.target, *resolved).applies) continue;
        unsigned distance = parameterDistance(*r, *resolved, grid, m, t.target);
        applicable[r->id()].push_back({*resolved, distance});
        Candidate c;
        c.steps = {{r->id(), *resolved}};
        c.target = t.target;
        c.kernel = t.kernel;
        c.line = t.line;
        c.where = t.where;
        c.family = r->id();
        c.distance = distance;
        c.familyRank = familyRank(c.family, order);
        c.id = stepLabel(*r, *resolved, grid);
        listed.push_back({std::move(c), ti, listed.size()});
      }
    }
    if (!launch) continue;
    // Chains: the first rewrite's applicable variants x the later ones' grids.
    for (const std::vector<std::string> &chain : launchChains()) {
      std::vector<const Rewrite *> rs;
      for (const std::string &id : chain)
        if (const Rewrite *r = findRewrite(id)) rs.push_back(r);
      if (rs.size() != chain.size() || !applicable.count(chain.front())) continue;
      std::vector<std::vector<std::pair<RewriteParams, unsigned>>> choices{applicable[chain.front()]};
      for (size_t i = 1; i < rs.size(); ++i) {
        std::vector<std::pair<RewriteParams, unsigned>> step;
        std::vector<RewriteParams> grid = rs[i]->variants();
        for (const RewriteParams &v : grid) {
          auto resolved = resolveParams(*rs[i], v);
          if (!resolved) {
            llvm::consumeError(resolved.takeError());
            continue;
          }
          step.push_back({*resolved, parameterDistance(*rs[i], *resolved, grid, m, t.target)});
        }
        choices.push_back(std::move(step));
      }
      std::vector<size_t> pick(choices.size(), 0);
      if (std::any_of(choices.begin(), choices.end(), [](const auto &c) { return c.empty(); })) continue;
      for (;;) {
        Candidate c;
        c.target = t.target;
        c.kernel = t.kernel;
        c.line = t.line;
        c.where = t.where;
        c.family = llvm::join(chain, "+");
        c.familyRank = familyRank(c.family, order);
        for (size_t i = 0; i < rs.size(); ++i) {
          const auto &[params, distance] = choices[i][pick[i]];
          c.steps.push_back({rs[i]->id(), params});
          c.distance += distance;
          c.id += (i ? "+" : "") + stepLabel(*rs[i], params, rs[i]->variants());
        }
        listed.push_back({std::move(c), ti, listed.size()});
        size_t d = rs.size();
        while (d > 0 && ++pick[d - 1] == choices[d - 1].size()) pick[--d] = 0;
        if (d == 0) break;
      }
    }
  }

  std::stable_sort(listed.begin(), listed.end(), [](const Listed &a, const Listed &b) {
    return std::tie(a.c.distance, a.c.familyRank, a.targetIndex, a.enumeration) <
           std::tie(b.c.distance, b.c.familyRank, b.targetIndex, b.enumeration);
  });
  // Ids carry the target's line when there is more than one target, and
  // stay unique when two targets share a line.
  std::set<std::string> ids{"baseline"};
  for (Listed &l : listed) {
    Candidate &c = l.c;
    c.title = joinTitles(c.steps);
    std::string id = c.id + (targets.size() > 1 ? ".L" + std::to_string(c.line) : "");
    for (int n = 2; ids.count(id); ++n) id = c.id + ".L" + std::to_string(c.line) + "." + std::to_string(n);
    ids.insert(id);
    c.id = id;
    c.order = list.candidates.size();
    list.candidates.push_back(std::move(c));
  }
  return list;
}

std::vector<std::string> describeCandidates(const std::vector<Candidate> &candidates) {
  std::vector<std::string> out;
  for (const Candidate &c : candidates)
    out.push_back(std::to_string(c.order + 1) + ". " + c.id + ": " + c.title + " (" + c.where + ")");
  return out;
}

llvm::Error checkProfileConfig(const ProfileConfig &p, const std::string &configPath, const std::string &lookedFrom) {
  if (configPath.empty())
    return fail("no .nestor.yaml with a profile section was found (looked in the directory of " + lookedFrom +
                " and its parents); add one, e.g.\n"
                "  profile:\n"
                "    build: \"nvcc -O3 -arch=sm_90 {defines} {flags} {source} -o {exe}\"\n"
                "    run: \"{exe} --out out.txt\"\n"
                "    outputs: [out.txt]\n"
                "    tolerance: 1e-6");
  std::vector<std::string> missing;
  if (llvm::StringRef(p.build).trim().empty()) missing.push_back("build (the build command template)");
  if (llvm::StringRef(p.run).trim().empty()) missing.push_back("run (the command that runs the program)");
  if (p.outputs.empty() && llvm::StringRef(p.check).trim().empty())
    missing.push_back("outputs or check (how a variant's results are compared with the baseline's)");
  if (!missing.empty())
    return fail(configPath + ": the profile section needs " + llvm::join(missing, ", ") +
                "; see docs/profile-planner.md");
  if (p.tolerance < 0) return fail(configPath + ": profile.tolerance must be >= 0, got " + std::to_string(p.tolerance));
  return llvm::Error::success();
}

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
  if (llvm::Error err = writeFileAtomically(path.string(), text)) return err;
  return llvm::Error::success();
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
                        {"description", "the file as analysed"}});
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
  if (auto env = llvm::sys::Process::GetEnv("NESTOR_RUNTIME_DIR"); env && !env->empty()) return *env;
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, reinterpret_cast<void *>(&runtimeIncludeDir));
  if (!exe.empty()) {
    fs::path installed = fs::path(exe).parent_path().parent_path() / "include";
    if (fs::exists(installed / "nestor" / "dp.cuh")) return installed.string();
  }
  return NESTOR_RUNTIME_INCLUDE_DIR;
}

} // namespace nestor::planner
