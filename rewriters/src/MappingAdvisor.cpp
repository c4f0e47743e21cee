// MappingAdvisor.h: mappings of the static model -> the rewrites that make them.
//   loops:    sequential = the original; y-S = np inter-warp S slaves;
//             lanes-S = np intra-warp S slaves and subwarp width S;
//             warp-tasks = cte; Span(n) and Split(k) have no rewrite yet.
//   launches: child-grid = the original; threshold-T, coarsen-c and
//             aggregate-g compose in that order (the thesis' chain).
#include "nestor/MappingAdvisor.h"


#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>

#include <algorithm>
#include <cmath>

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

/// The mapping a rewrite makes with these parameters (RewriteInfo::realises):
/// the first whose fixed parameters they have, else its first (a parameter
/// left empty takes the rewrite's default mapping). Null: it makes none.
const RealisedMapping *realisedBy(const std::string &rewrite, const RewriteParams &p) {
  const Rewrite *r = findRewrite(rewrite);
  if (!r || r->info().realises.empty()) return nullptr;
  for (const RealisedMapping &rm : r->info().realises) {
    bool fits = std::all_of(rm.fixedParams.begin(), rm.fixedParams.end(), [&](const auto &kv) {
      auto it = p.find(kv.first);
      return it != p.end() && it->second == kv.second;
    });
    if (fits) return &rm;
  }
  return &r->info().realises.front();
}

// The model's mapping ids (MappingLoops.cpp, MappingLaunches.cpp): a loop
// placement with its thread count ("y-4", "lanes-8"), "warp-tasks",
// "merge-path", a delayed template with its lb_threshold
// ("delayed-global-buffer-64"); at a launch a promoted template
// ("promoted-two-queues-32"), a recursion template, or the parts of a
// threshold/coarsen/aggregate chain ("threshold-128+aggregate-grid").
bool isLoopPlacement(const std::string &m) { return m == "y" || m == "lanes"; }
bool isLaunchChainPart(const std::string &m) { return m == "threshold" || m == "coarsen" || m == "aggregate"; }

/// The mapping id a rewrite chain realises (the inverse of realisationsOf).
std::string mappingIdOf(const std::vector<std::pair<std::string, RewriteParams>> &steps, bool isLaunch) {
  auto param = [](const RewriteParams &p, const std::string &k) {
    auto it = p.find(k);
    return it == p.end() ? std::string() : it->second;
  };
  if (steps.size() == 1) {
    const auto &[id, p] = steps.front();
    const RealisedMapping *rm = realisedBy(id, p);
    if (!rm) return "";
    const std::string &m = rm->mapping;
    if (!isLaunch) {
      if (isLoopPlacement(m)) return m + "-" + param(p, rm->numberParam);
      if (m == "warp-tasks" || m == "merge-path") return m;
      return "delayed-" + m + "-" + param(p, rm->numberParam);
    }
    if (llvm::StringRef(m).starts_with("recursion")) return m;
    if (!isLaunchChainPart(m)) return "promoted-" + m + "-" + param(p, rm->numberParam);
  }
  if (!isLaunch) return "";
  // A chain's parts, in the order threshold, coarsen, aggregate.
  std::map<std::string, std::string> parts;
  for (const auto &[id, p] : steps) {
    const RealisedMapping *rm = realisedBy(id, p);
    if (!rm || !isLaunchChainPart(rm->mapping)) return "";
    parts[rm->mapping] = rm->mapping + "-" + param(p, rm->numberParam);
  }
  std::string out;
  for (const char *part : {"threshold", "coarsen", "aggregate"})
    if (auto it = parts.find(part); it != parts.end()) out += (out.empty() ? "" : "+") + it->second;
  return out;
}
} // namespace

std::vector<Realisation> realisationsOf(const Mapping &m, bool isLaunch) {
  std::vector<Realisation> out;
  if (!isLaunch && (m.span != 1 || m.split != 1)) return out;
  // The rewrites that make the mapping, each with the mapping's number in
  // its parameter: a template (its lb_threshold, when the mapping has one)
  // or, on loops, a placement (its thread count).
  const std::string made = !m.family.empty() ? m.family : isLaunch ? std::string() : m.placement;
  if (!made.empty()) {
    for (const Rewrite *r : allRewrites()) {
      if ((r->targetKind() == RewriteTarget::Kind::Launch) != isLaunch) continue;
      for (const RealisedMapping &rm : r->info().realises) {
        if (rm.mapping != made) continue;
        RewriteParams given = rm.fixedParams;
        unsigned number = isLoopPlacement(made) ? m.slaves : m.lbThreshold;
        if (!rm.numberParam.empty() && number) given[rm.numberParam] = std::to_string(number);
        if (auto s = step(r->id(), given)) out.push_back(Realisation{{std::move(*s)}});
      }
    }
    return out;
  }
  if (!isLaunch) return out;
  // A threshold/coarsen/aggregate chain, in the registry's composition order.
  Realisation chain;
  for (const Rewrite *r : allRewrites()) {
    if (r->targetKind() != RewriteTarget::Kind::Launch) continue;
    for (const RealisedMapping &rm : r->info().realises) {
      if (!isLaunchChainPart(rm.mapping)) continue;
      std::string value = rm.mapping == "threshold" ? (m.threshold ? std::to_string(m.threshold) : "")
                          : rm.mapping == "coarsen" ? (m.coarsen > 1 ? std::to_string(m.coarsen) : "")
                                                    : m.aggregate;
      if (value.empty()) continue;
      RewriteParams given = rm.fixedParams;
      given[rm.numberParam] = value;
      auto s = step(r->id(), given);
      if (!s) return out; // a part the rewrite cannot take: no realisation
      chain.steps.push_back(std::move(*s));
    }
  }
  if (!chain.steps.empty()) out.push_back(std::move(chain));
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
             {"placement", m.placement}, {"score", m.score}, {"dop", m.dop},
             {"estimate_us", m.estimateUs}, {"cost", m.costWhy}};
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
                {"original_estimate_us", a.target.originalUs},
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

// ---- one ranking of everything the engine offers here -----------------------

const RankedOffer *OfferRanking::best() const {
  for (const RankedOffer &o : offers)
    if (o.applies && o.estimateUs >= 0) return &o;
  return nullptr;
}

std::string keepOriginalMarginText() {
  return std::to_string(int(std::lround((kKeepOriginalMargin - 1) * 100))) + "%";
}

OriginalPlace placeOriginal(double originalUs, const std::vector<double> &estimatesUs, size_t choices) {
  OriginalPlace p;
  p.rank = choices + 1;
  if (originalUs <= 0) return p;
  const double best = estimatesUs.empty() ? 0 : *std::min_element(estimatesUs.begin(), estimatesUs.end());
  p.keep = estimatesUs.empty() || best * kKeepOriginalMargin > originalUs;
  p.rank = p.keep ? 1 : 1 + size_t(std::count_if(estimatesUs.begin(), estimatesUs.end(), [&](double e) { return e < originalUs; }));
  return p;
}

OfferRanking rankOffers(const AnalyzedTU &tu, const MappingConfig &cfg, const RewriteTarget &t) {
  OfferRanking out;
  out.advice = adviseMappings(tu, cfg, t, /*checkRealisations=*/true);
  if (out.advice) out.originalUs = out.advice->target.originalUs;
  // Every variant of every rewrite of the target's kind, from the registry:
  // a rewrite the model has no mapping for is still listed (no estimate).
  for (ShownOffer &shown : shownOffersAt(tu, t)) {
    RankedOffer o;
    static_cast<ShownOffer &>(o) = std::move(shown);
    if (out.advice)
      if (const AdvisedMapping *m = out.advice->forSteps({{o.rewrite->id(), o.params}})) {
        o.mapping = m->mapping;
        o.estimateUs = m->mapping->estimateUs;
      }
    out.offers.push_back(std::move(o));
  }
  // Offers that apply, fastest estimate first (no estimate after them), then
  // the refused ones in the registry's order.
  std::stable_sort(out.offers.begin(), out.offers.end(), [](const RankedOffer &a, const RankedOffer &b) {
    if (a.applies != b.applies) return a.applies;
    if (!a.applies) return false;
    if ((a.estimateUs >= 0) != (b.estimateUs >= 0)) return a.estimateUs >= 0;
    return a.estimateUs < b.estimateUs;
  });
  unsigned rank = 0;
  std::vector<double> estimates;
  for (RankedOffer &o : out.offers)
    if (o.applies) {
      o.rank = ++rank;
      if (o.estimateUs >= 0) estimates.push_back(o.estimateUs);
    }
  OriginalPlace place = placeOriginal(out.originalUs, estimates, rank);
  out.keepOriginal = place.keep;
  out.originalRank = place.rank;
  return out;
}

namespace {
std::string variantLabel(const RankedOffer &o) {
  std::string label;
  for (const auto &[k, v] : o.params)
    if (!v.empty()) label += (label.empty() ? "" : ",") + k + "=" + v;
  return label.empty() ? std::string(o.rewrite->id()) : label;
}
std::string commandOf(const RankedOffer &o) {
  Realisation r;
  r.steps.push_back({o.rewrite->id(), o.params});
  return r.command();
}
} // namespace

std::string adviceSentence(const OfferRanking &r) {
  if (r.originalUs <= 0) return "";
  const RankedOffer *b = r.best();
  std::string s = "original " + estimateText(r.originalUs) + "; ";
  if (r.keepOriginal)
    return s + "keep the original: " +
           (b ? "the best offer, " + std::string(b->rewrite->id()) + " " + variantLabel(*b) + " (" +
                    estimateText(b->estimateUs) + "), is not estimated to beat it by " + keepOriginalMarginText()
            : std::any_of(r.offers.begin(), r.offers.end(), [](const RankedOffer &o) { return o.applies; })
                ? std::string("no rewrite that applies here has an estimate")
                : std::string("no rewrite applies here"));
  return s + "best: " + b->rewrite->id() + " " + variantLabel(*b) + " " + estimateText(b->estimateUs) + " (" +
         commandOf(*b) + "); the original ranks #" + std::to_string(r.originalRank) + ", after the offers estimated faster";
}

std::string offerListText(const OfferRanking &r, bool verbose) {
  std::string out;
  if (r.originalUs > 0) out += "advice: " + adviceSentence(r) + "\n";
  if (verbose) {
    const std::string original = "original [keep the original]: rank " + std::to_string(r.originalRank) + ": " +
                                 estimateText(r.originalUs) + "\n";
    bool originalShown = r.originalUs <= 0; // no estimate: no line
    for (const RankedOffer &o : r.offers) {
      if (!originalShown && o.applies && o.rank == r.originalRank) {
        out += original;
        originalShown = true;
      }
      out += std::string(o.rewrite->id()) + " [" + o.title + "]: ";
      if (!o.applies) out += "not offered: " + o.reason;
      else if (o.estimateUs >= 0)
        out += llvm::formatv("applies, rank {0}: {1} ({2})", o.rank, estimateText(o.estimateUs), o.mapping->costWhy).str();
      else out += "applies (no estimate: the model has no mapping for it)";
      out += "\n";
    }
    if (!originalShown) out += original; // after every offer
    return out;
  }
  // One line per rewrite family that applies, its variants in rank order; one
  // line per refused family with its distinct reasons.
  std::vector<const Rewrite *> order;
  std::map<const Rewrite *, std::vector<const RankedOffer *>> applies, refused;
  for (const RankedOffer &o : r.offers) {
    if (!applies.count(o.rewrite) && !refused.count(o.rewrite)) order.push_back(o.rewrite);
    (o.applies ? applies : refused)[o.rewrite].push_back(&o);
  }
  // Families that apply in the order of their best variant (offers are sorted).
  for (const Rewrite *rw : order) {
    auto it = applies.find(rw);
    if (it == applies.end()) continue;
    std::string line = std::string(rw->id()) + ":";
    for (size_t i = 0; i < it->second.size(); ++i) {
      const RankedOffer &o = *it->second[i];
      line += std::string(i ? "," : "") + " #" + std::to_string(o.rank) + " " + variantLabel(o) +
              (o.estimateUs >= 0 ? " \u2248 " + formatMicroseconds(o.estimateUs) : " (no estimate)");
    }
    out += line + "\n";
  }
  for (const Rewrite *rw : order) {
    auto it = refused.find(rw);
    if (it == refused.end()) continue;
    std::vector<std::string> reasons;
    for (const RankedOffer *o : it->second)
      if (std::find(reasons.begin(), reasons.end(), o->reason) == reasons.end()) reasons.push_back(o->reason);
    std::string line = std::string(rw->id()) + ": not offered";
    if (applies.count(rw))
      line += " for " + std::to_string(it->second.size()) + " of its variants";
    out += line + ": " + llvm::join(reasons, "; ") + "\n";
  }
  return out;
}

std::string offerMarkdown(const OfferRanking &r) {
  if (r.originalUs <= 0) return "";
  std::string md = "**Estimated time** (cost model, docs/mapping.md): original " + estimateText(r.originalUs) + ".\n\n";
  if (r.keepOriginal)
    md += "**Keep the original**: nothing offered here is estimated to beat it by " +
          keepOriginalMarginText() + ".\n\n";
  // The top three of the one ranking: "keep the original" among them at its rank.
  unsigned shown = 0, offersShown = 0;
  for (const RankedOffer &o : r.offers) {
    if (!o.applies || o.estimateUs < 0 || shown == 3) continue;
    if (!r.keepOriginal && o.rank == r.originalRank) {
      md += std::to_string(++shown) + ". Keep the original: " + estimateText(r.originalUs) + "\n";
      if (shown == 3) break;
    }
    ++offersShown;
    md += std::to_string(++shown) + ". " + o.title + ": " + estimateText(o.estimateUs) + ", `" + commandOf(o) + "` — " +
          o.mapping->costWhy + "\n";
  }
  if (!offersShown) md += "No offered rewrite has an estimate here.\n";
  if (r.advice)
    for (const std::string &a : r.advice->target.assumptions) md += "\n- assumed: " + a;
  return md;
}

} // namespace nestor
