// The candidates of `nestor profile` (docs/profile-planner.md): every
// applicable rewrite and composition for a kernel, in the static order the
// budget follows. Writing them out as a plan is PlanWriter.cpp.
#include "nestor/planner/Planner.h"

#include "nestor/Lint.h"
#include "nestor/MappingAdvisor.h"
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

std::string sanitizeId(const std::string &s) {
  std::string out;
  for (char c : s) out += (llvm::isAlnum(c) || c == '_' || c == '.' || c == '+' || c == '-') ? c : '_';
  return out;
}

namespace {

llvm::Error fail(const llvm::Twine &message) { return llvm::createStringError(llvm::inconvertibleErrorCode(), message); }

// ---- the static order --------------------------------------------------------
//
// Where the cost model has no estimate, the papers' measured order decides:
// each rewrite declares the families it heads and their rank (RewriteInfo,
// docs/profile-planner.md explains each entry).

/// The family's id: its rewrites joined by '+'.
std::string familyId(const RewriteFamily &f) { return llvm::join(f.rewrites, "+"); }

/// The rank of the family `id` at a target of kind `kind` whose loop has trip
/// counts `trips`. A family without a declared rank comes after every ranked
/// family of its kind (100 + their count, as the static order always had it).
unsigned familyRank(const std::string &id, RewriteTarget::Kind kind, TripCountClass trips) {
  unsigned ranked = 0;
  for (const Rewrite *r : allRewrites()) {
    if (r->targetKind() != kind) continue;
    for (const RewriteFamily &f : r->info().families) {
      if (familyId(f) == id)
        return trips == TripCountClass::Irregular && f.paperRankOnIrregularLoop ? *f.paperRankOnIrregularLoop : f.paperRank;
      ++ranked;
    }
  }
  return 100 + ranked;
}

/// The composition chains (families of more than one rewrite) of a target
/// kind, in their declared rank order.
std::vector<std::vector<std::string>> chainsOf(RewriteTarget::Kind kind) {
  std::vector<std::pair<unsigned, std::vector<std::string>>> ranked;
  for (const Rewrite *r : allRewrites())
    if (r->targetKind() == kind)
      for (const RewriteFamily &f : r->info().families)
        if (f.rewrites.size() > 1) ranked.push_back({f.paperRank, f.rewrites});
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<std::vector<std::string>> out;
  for (auto &[rank, chain] : ranked) out.push_back(std::move(chain));
  return out;
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
    if (auto p = r.preferredValue(spec, m, t)) {
      auto pat = std::find(values.begin(), values.end(), *p);
      if (pat != values.end()) pref = size_t(pat - values.begin());
    }
    distance += unsigned(pos > pref ? pos - pref : pref - pos);
  }
  return distance;
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
  return "candidates are ordered by (0) the estimated time of the mapping they realise in the cost model "
         "(docs/mapping.md; .nestor.yaml mapping: sizes, gpu, bandwidth_gbs, device_launch_us, pins), the largest "
         "estimated saving first (\"keep the original\" when none saves 10%), then by (1) parameter distance: the sum over the chain's rewrites of how far each parameter "
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
  std::vector<std::optional<MappingAdvice>> advice;
  for (const Target &t : targets) advice.push_back(adviseMappings(tu, config.mapping, t.target, /*checkRealisations=*/false));
  for (size_t ti = 0; ti < targets.size(); ++ti) {
    const Target &t = targets[ti];
    // Single rewrites, and which variants of each apply (chains start there).
    std::map<std::string, std::vector<std::pair<RewriteParams, unsigned>>> applicable;
    for (const Offer &o : offersAt(tu, t.target)) {
      const Rewrite *r = o.rewrite;
      if (r->info().annotationOnly) {
        if (o.applicability.applies && noted.insert(r->id()).second)
          list.notes.push_back(std::string(r->id()) + " is not timed: it only annotates the source, so its variant would "
                                                      "measure the baseline again");
        continue;
      }
      if (!o.applicability.applies) continue;
      std::vector<RewriteParams> grid = r->variants();
      unsigned distance = parameterDistance(*r, o.params, grid, m, t.target);
      applicable[r->id()].push_back({o.params, distance});
      Candidate c;
      c.steps = {{r->id(), o.params}};
      c.target = t.target;
      c.kernel = t.kernel;
      c.line = t.line;
      c.where = t.where;
      c.family = r->id();
      c.distance = distance;
      c.familyRank = familyRank(c.family, t.target.kind, t.trips);
      c.id = stepLabel(*r, o.params, grid);
      listed.push_back({std::move(c), ti, listed.size()});
    }
    // Chains (launch targets): the first rewrite's applicable variants x the
    // later ones' grids.
    for (const std::vector<std::string> &chain : chainsOf(t.target.kind)) {
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
        c.familyRank = familyRank(c.family, t.target.kind, t.trips);
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

  // The mapping model's score first (docs/mapping.md), then the parameter
  // distance and family for what it does not rank or ties.
  for (Listed &l : listed) {
    const std::optional<MappingAdvice> &a = advice[l.targetIndex];
    if (!a) continue;
    std::vector<std::pair<std::string, RewriteParams>> steps;
    for (const CandidateStep &s : l.c.steps) steps.push_back({s.rewrite, s.params});
    if (const AdvisedMapping *m = a->forSteps(steps)) {
      l.c.mapping = m->mapping->id;
      l.c.mappingRank = m->rank;
      l.c.mappingScore = m->mapping->score;
      l.c.estimateUs = m->mapping->estimateUs;
      l.c.originalUs = a->target.originalUs;
    }
  }
  // The cost model's estimated saving first (a variant changes one target:
  // the kernel's time moves by its estimate minus that target's original);
  // unestimated candidates after, by the model's rank, parameter distance and family.
  auto saving = [](const Candidate &c) { return c.estimateUs >= 0 ? c.estimateUs - c.originalUs : 1e300; };
  std::stable_sort(listed.begin(), listed.end(), [&](const Listed &a, const Listed &b) {
    return std::make_tuple(saving(a.c), a.c.mappingRank, a.c.distance, a.c.familyRank, a.targetIndex, a.enumeration) <
           std::make_tuple(saving(b.c), b.c.mappingRank, b.c.distance, b.c.familyRank, b.targetIndex, b.enumeration);
  });
  for (const std::optional<MappingAdvice> &a : advice)
    if (a) list.originalUs += a->target.originalUs;
  // The one rule of every front end (placeOriginal), on the kernel's time:
  // the original's plus a candidate's saving.
  std::vector<double> estimates;
  for (const Listed &l : listed)
    if (saving(l.c) < 1e300) estimates.push_back(list.originalUs + saving(l.c));
  OriginalPlace place = placeOriginal(list.originalUs, estimates, listed.size());
  list.keepOriginal = place.keep;
  list.originalRank = place.rank;
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

} // namespace nestor::planner
