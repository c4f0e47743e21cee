// Mappings of a kernel's threads (level 0) x the child grids they launch
// (level 1): the child grid as written, children below a threshold run
// serially in the parent thread (Span(all) of the child level in one thread),
// children coarsened (Span(c) of the child level), and children aggregated
// into one launch per warp, block or grid (level 1 mapped across the
// launching threads) — the thesis' rewrites seen as mappings. The soft
// constraints add the device-launch overhead to the paper's set.
#include "MappingParts.h"

#include <cmath>

namespace nestor::mapping_detail {

void rankLaunch(const FileModel &m, const LaunchSite &ls, const MappingConfig &cfg, TargetMappings &out) {
  const Kernel *parent = m.findKernel(ls.parent);
  if (!parent || !parent->isGlobal) return;
  out.kernel = parent->name;
  out.line = ls.span.begin.line;
  std::optional<unsigned> block;
  Count threads = kernelThreads(m, *parent, cfg, block, out.assumptions);
  const double B = block.value_or(256);
  // Threads that launch: every thread, or one per block under a guard.
  const double P = ls.everyThreadMayLaunch ? threads.value : std::max(1.0, threads.value / B);
  Count child{cfg.defaultTrip, true};
  if (ls.threads)
    if (auto v = evaluateSize(*ls.threads, cfg.sizes)) child = {std::max(1.0, *v), false};
  if (child.assumed)
    out.assumptions.push_back("threads of each child grid at line " + std::to_string(ls.span.begin.line) + " ('" +
                              ls.threads.value_or(ls.grid + " x " + ls.block) + "'): assumed " +
                              human(cfg.defaultTrip) + " on average (set mapping.sizes)");
  const double C = child.value, work = P * C;
  const MappingWeights &w = cfg.weights;

  for (unsigned T : {0u, 32u, 128u, 512u, 2048u})
    for (unsigned c : {1u, 2u, 4u, 8u})
      for (const std::string agg : {"", "warp", "block", "grid"}) {
        Mapping mp;
        mp.threshold = T;
        mp.coarsen = c;
        mp.aggregate = agg;
        std::string id;
        if (T) id += "threshold-" + std::to_string(T);
        if (c > 1) id += std::string(id.empty() ? "" : "+") + "coarsen-" + std::to_string(c);
        if (!agg.empty()) id += std::string(id.empty() ? "" : "+") + "aggregate-" + agg;
        mp.id = id.empty() ? "child-grid" : id;
        mp.placement = id.empty() ? "child-grid" : !agg.empty() ? "aggregated" : T ? "threshold" : "coarsened";
        if (std::string pin = pinViolation(mp, cfg); !pin.empty()) {
          out.pruned.push_back({mp.id, pin});
          continue;
        }
        if (!ls.serializable && T) {
          out.pruned.push_back({mp.id, "the child cannot run serially in the parent thread: " +
                                           (ls.reasons.empty() ? std::string("see the model") : ls.reasons.front())});
          continue;
        }
        // Children are sized around the mean C; the share launched by a
        // threshold T follows an exponential tail exp(-T / C).
        double launchedShare = T ? std::exp(-double(T) / C) : 1.0;
        double serialWork = work * (1 - launchedShare);
        double perLaunch = agg == "warp" ? 32 : agg == "block" ? B : !agg.empty() ? P : 1;
        double launches = P * launchedShare / std::min(perLaunch, std::max(1.0, P));
        if (agg == "grid") launches = launchedShare > 0 ? 1 : 0;

        // The launch statement runs P times and each run costs launchCost
        // child-thread units (the paper's weight: intrinsic x executions); a
        // mapping satisfies it by the share of those launches it removes.
        double lsat = P > 0 ? 1.0 - launches / P : 1.0;
        soft(mp, "launch-overhead", true, w.launches, P * cfg.launchCost, lsat,
             human(launches) + " device launches instead of " + human(P) + " (one launch ~ " + human(cfg.launchCost) +
                 " child threads of work; " + human(work) + " child threads in all)");
        mp.dop = (work - serialWork) / c + P * (1 - launchedShare);
        std::string pwhy;
        double psat = parallelismSatisfied(mp.dop, cfg.gpu, pwhy);
        soft(mp, "parallelism", true, w.parallelism, work, psat, pwhy);
        double fs = work > 0 ? serialWork / work : 0;
        double bal = (1 - fs) + fs / (1.0 + cfg.skew * log2of(32));
        soft(mp, "load-balance", false, w.balance, work, bal,
             percent(fs) + " of the child work runs serially in parent threads, where a warp waits for its longest child");
        double coal = (1 - fs) + fs * sectorEfficiency(32, 1);
        soft(mp, "coalescing:child", false, w.coalescing, work, coal,
             "child threads' consecutive accesses (assumed) become one thread's walk when serialised: " + percent(coal));
        double agGroup = agg == "warp" ? 32 : agg == "block" ? B : !agg.empty() ? P : 1;
        double comb = 1.0 / (1.0 + 0.02 * log2of(agGroup)) * (c > 1 ? C / (c * std::ceil(C / c)) : 1.0);
        soft(mp, "combine", false, w.combine, work, comb,
             std::string(!agg.empty() ? "each aggregated child thread finds its parent (search over " + human(agGroup) + ")" : "no aggregation") +
                 (c > 1 ? "; coarsening by " + std::to_string(c) + " leaves a partial last step" : ""));

        mp.levels.push_back({"threads of '" + parent->name + "'", "x", unsigned(B), "1", 1});
        mp.levels.push_back({"child grid of '" + ls.child + "'", !agg.empty() ? "aggregated per " + agg : "child grid",
                             0, c > 1 ? "n" : T ? "all (below T)" : "1", c});
        mp.summary = mp.id == "child-grid" ? "one child grid per launching thread, as written"
                                           : std::string(T ? "children under " + std::to_string(T) + " threads serial" : "") +
                                                 (c > 1 ? std::string(T ? ", " : "") + "coarsened by " + std::to_string(c) : "") +
                                                 (!agg.empty() ? std::string(T || c > 1 ? ", " : "") + "one launch per " + agg : "");
        finish(mp);
        out.ranked.push_back(std::move(mp));
      }
}

} // namespace nestor::mapping_detail
