// MappingAdvisor.h: mappings of the static model -> the rewrites that make them.
//   loops:    sequential = the original; y-S = np inter-warp S slaves;
//             lanes-S = np intra-warp S slaves and subwarp width S;
//             warp-tasks = cte; Span(n) and Split(k) have no rewrite yet.
//   launches: child-grid = the original; threshold-T, coarsen-c and
//             aggregate-g compose in that order (the thesis' chain).
#include "nestor/MappingAdvisor.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

namespace nestor {

std::string Realisation::command() const {
  std::string ids, params;
  for (const auto &[id, p] : steps) {
    ids += (ids.empty() ? "" : ",") + id;
    for (const auto &[k, v] : p)
      if (!v.empty()) params += " --param " + k + "=" + v;
  }
  return "--apply " + ids + params;
}

namespace {
std::optional<std::pair<std::string, RewriteParams>> step(const std::string &id, const RewriteParams &given) {
  const Rewrite *r = findRewrite(id);
  if (!r) return std::nullopt;
  auto p = resolveParams(*r, given);
  if (!p) {
    llvm::consumeError(p.takeError());
    return std::nullopt;
  }
  return std::make_pair(id, *p);
}

/// The mapping id a rewrite chain realises (the inverse of realisationsOf).
std::string mappingIdOf(const std::vector<std::pair<std::string, RewriteParams>> &steps, bool isLaunch) {
  auto param = [](const RewriteParams &p, const char *k) {
    auto it = p.find(k);
    return it == p.end() ? std::string() : it->second;
  };
  if (!isLaunch) {
    if (steps.size() != 1) return "";
    const auto &[id, p] = steps.front();
    if (id == "np") return (param(p, "np_type") == "intra" ? "lanes-" : "y-") + param(p, "slaves");
    if (id == "subwarp") return "lanes-" + param(p, "width");
    if (id == "cte") return "warp-tasks";
    return "";
  }
  std::string t, c, a;
  for (const auto &[id, p] : steps) {
    if (id == "threshold") t = "threshold-" + param(p, "threshold");
    else if (id == "coarsen") c = "coarsen-" + param(p, "factor");
    else if (id == "aggregate") a = "aggregate-" + param(p, "granularity");
    else return "";
  }
  std::string out = t;
  for (const std::string &part : {c, a})
    if (!part.empty()) out += (out.empty() ? "" : "+") + part;
  return out;
}
} // namespace

std::vector<Realisation> realisationsOf(const Mapping &m, bool isLaunch) {
  std::vector<Realisation> out;
  auto add = [&](std::vector<std::optional<std::pair<std::string, RewriteParams>>> steps) {
    Realisation r;
    for (auto &s : steps) {
      if (!s) return;
      r.steps.push_back(std::move(*s));
    }
    out.push_back(std::move(r));
  };
  if (!isLaunch) {
    if (m.span != 1 || m.split != 1) return out;
    std::string S = std::to_string(m.slaves);
    if (m.placement == "y") add({step("np", {{"slaves", S}, {"np_type", "inter"}})});
    if (m.placement == "lanes") {
      add({step("np", {{"slaves", S}, {"np_type", "intra"}})});
      add({step("subwarp", {{"width", S}})});
    }
    if (m.placement == "warp-tasks") add({step("cte", {})});
    return out;
  }
  std::vector<std::optional<std::pair<std::string, RewriteParams>>> steps;
  if (m.threshold) steps.push_back(step("threshold", {{"threshold", std::to_string(m.threshold)}}));
  if (m.coarsen > 1) steps.push_back(step("coarsen", {{"factor", std::to_string(m.coarsen)}, {"strategy", "1"}}));
  if (!m.aggregate.empty()) steps.push_back(step("aggregate", {{"granularity", m.aggregate}}));
  if (!steps.empty()) add(std::move(steps));
  return out;
}

std::pair<const AdvisedMapping *, const Realisation *> MappingAdvice::bestRealisable() const {
  for (const AdvisedMapping &a : advised)
    for (const Realisation &r : a.realisations)
      if (r.applies) return {&a, &r};
  return {nullptr, nullptr};
}

const AdvisedMapping *MappingAdvice::forSteps(const std::vector<std::pair<std::string, RewriteParams>> &steps) const {
  std::string id = mappingIdOf(steps, target.isLaunch);
  if (id.empty()) return nullptr;
  for (const AdvisedMapping &a : advised)
    if (a.mapping->id == id) return &a;
  return nullptr;
}

std::optional<MappingAdvice> adviseMappings(const AnalyzedTU &tu, const MappingConfig &cfg, const RewriteTarget &t,
                                            bool checkRealisations) {
  const bool launch = t.kind == RewriteTarget::Kind::Launch;
  auto ranked = rankMappingsOf(tu.model(), cfg, launch, t.id);
  if (!ranked) return std::nullopt;
  MappingAdvice a;
  a.target = std::move(*ranked);
  for (size_t i = 0; i < a.target.ranked.size(); ++i) {
    AdvisedMapping am;
    am.mapping = &a.target.ranked[i];
    am.rank = unsigned(i + 1);
    am.realisations = realisationsOf(*am.mapping, launch);
    if (!checkRealisations) {
      a.advised.push_back(std::move(am));
      continue;
    }
    for (Realisation &r : am.realisations) {
      // A chain's later steps apply to the rewritten text (the drivers
      // re-analyse between steps); here every step is asked on the original,
      // so a step refused for what the earlier ones do not change (a class
      // argument aggregate cannot record) is not advised (issue #21).
      for (size_t i = 0; i < r.steps.size(); ++i) {
        const Rewrite *rw = findRewrite(r.steps[i].first);
        Applicability ap = rw->prepare(tu, t, r.steps[i].second);
        if (i == 0) r.note = ap.note;
        r.applies = ap.applies;
        if (!ap.applies) {
          r.reason = (i ? std::string(rw->id()) + ": " : "") + ap.reason;
          break;
        }
      }
    }
    a.advised.push_back(std::move(am));
  }
  return a;
}

llvm::json::Value toJSON(const MappingAdvice &a, size_t top) {
  using namespace llvm::json;
  Array ranked;
  for (const AdvisedMapping &am : a.advised) {
    // The first `top`, every mapping a rewrite makes, and the original code.
    bool original = am.mapping->id == "sequential" || am.mapping->id == "child-grid";
    if (am.rank > top && am.realisations.empty() && !original) continue;
    const Mapping &m = *am.mapping;
    Object o{{"rank", am.rank},       {"id", m.id},       {"summary", m.summary},
             {"placement", m.placement}, {"score", m.score}, {"dop", m.dop}};
    if (a.target.isLaunch) {
      o["threshold"] = m.threshold;
      o["coarsen"] = m.coarsen;
      o["aggregate"] = m.aggregate;
    } else {
      o["slaves"] = m.slaves;
      o["span"] = m.span;
      o["split"] = m.split;
      o["masters_per_block"] = m.mastersPerBlock;
      o["block_threads"] = m.blockThreads;
      o["reshaped"] = m.reshaped;
    }
    Array levels;
    for (const MappingLevel &l : m.levels)
      levels.push_back(Object{{"what", l.what}, {"dim", l.dim}, {"block_size", l.blockSize}, {"span", l.span},
                              {"factor", l.factor}});
    o["levels"] = std::move(levels);
    Array constraints;
    for (const MappingConstraint &c : m.constraints)
      constraints.push_back(Object{{"id", c.id}, {"hard", c.hard}, {"scope", c.global ? "global" : "local"},
                                   {"weight", c.weight}, {"satisfied", c.satisfied}, {"why", c.why}});
    o["constraints"] = std::move(constraints);
    Array rewrites;
    for (const Realisation &r : am.realisations) {
      Array steps;
      for (const auto &[id, p] : r.steps) {
        Object params;
        for (const auto &[k, v] : p) params[k] = v;
        steps.push_back(Object{{"rewrite", id}, {"params", std::move(params)}});
      }
      Object ro{{"steps", std::move(steps)}, {"applies", r.applies}, {"command", r.command()}};
      if (!r.applies) ro["reason"] = r.reason;
      if (!r.note.empty()) ro["note"] = r.note;
      rewrites.push_back(std::move(ro));
    }
    o["rewrites"] = std::move(rewrites);
    ranked.push_back(std::move(o));
  }
  Array pruned;
  for (const PrunedMapping &p : a.target.pruned) pruned.push_back(Object{{"id", p.id}, {"why", p.why}});
  Array assumptions;
  for (const std::string &s : a.target.assumptions) assumptions.push_back(s);
  return Object{{"target", a.target.isLaunch ? "launch" : "loop"},
                {"id", a.target.id},
                {"kernel", a.target.kernel},
                {"line", a.target.line},
                {"total", int64_t(a.target.ranked.size())},
                {"ranked", std::move(ranked)},
                {"pruned", std::move(pruned)},
                {"assumptions", std::move(assumptions)},
                {"best", explainBest(a.target)}};
}

namespace {
/// The original code: no rewrite is needed to get it.
bool isOriginal(const Mapping &m, bool isLaunch) {
  if (isLaunch) return m.threshold == 0 && m.coarsen <= 1 && m.aggregate.empty() && m.placement == "child-grid";
  return m.placement == "sequential" && m.span == 1 && m.split == 1;
}
} // namespace

/// When no rewrite that applies here makes the first-ranked mapping (and it
/// is not the original code): "no rewrite makes it here (rewrite: reason)".
std::optional<std::string> bestNotMadeHere(const MappingAdvice &a) {
  if (a.advised.empty()) return std::nullopt;
  const AdvisedMapping &best = a.advised.front();
  for (const Realisation &r : best.realisations)
    if (r.applies) return std::nullopt;
  if (best.realisations.empty() && isOriginal(*best.mapping, a.target.isLaunch)) return std::nullopt;
  std::string out = "no rewrite makes it here";
  if (!best.realisations.empty()) {
    const Realisation &r = best.realisations.front();
    // A later step's refusal already starts with its rewrite's id.
    bool named = false;
    for (size_t i = 1; i < r.steps.size(); ++i) named |= llvm::StringRef(r.reason).starts_with(r.steps[i].first + ": ");
    out += " (" + (named ? "" : r.steps.front().first + ": ") + (r.reason.empty() ? "not applicable" : r.reason) + ")";
  }
  return out;
}

std::string adviceLine(const MappingAdvice &a) {
  auto notMade = bestNotMadeHere(a);
  if (!notMade) return explainBest(a.target);
  std::string out = "ranks first " + a.advised.front().mapping->summary + ", but " + *notMade;
  if (auto [m, re] = a.bestRealisable(); m)
    out += "; the best mapping a rewrite makes here: #" + std::to_string(m->rank) + " " + m->mapping->summary + " (" +
           re->command() + ")";
  else
    out += "; no rewrite that applies here makes any of the ranked mappings";
  return out;
}

std::string mappingMarkdown(const MappingAdvice &a) {
  if (a.advised.empty()) return "";
  const AdvisedMapping &best = a.advised.front();
  std::string md = "**Mapping model** (locality-aware mapping): ranks first " + best.mapping->summary + ", score " +
                   std::to_string(int(best.mapping->score * 100 + 0.5)) + "%.\n\n" + explainBest(a.target) + "\n";
  if (auto notMade = bestNotMadeHere(a)) md += "\nBut " + *notMade + ".\n";
  if (auto [r, re] = a.bestRealisable(); r) {
    md += "\nBest mapping a rewrite makes here: #" + std::to_string(r->rank) + " " + r->mapping->summary + " (`" +
          re->command() + "`" + (re->note.empty() ? "" : ", " + re->note) + ").\n";
  } else {
    md += "\nNo rewrite that applies here makes any of the ranked mappings (see the rewrites and their reasons above).\n";
  }
  for (const std::string &s : a.target.assumptions) md += "\n- assumed: " + s;
  return md;
}

} // namespace nestor
