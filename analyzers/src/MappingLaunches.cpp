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

void rankLaunch(const FileModel &m, const LaunchSite &ls, const MappingConfig &cfg, const Explaining &ex,
                TargetMappings &out) {
  const Kernel *parent = m.findKernel(ls.parent);
  if (!parent || !parent->isGlobal) return;
  out.kernel = parent->name;
  out.line = ls.span.begin.line;
  std::optional<unsigned> block;
  Count threads = kernelThreads(m, *parent, cfg, block, out.assumptions);
  const double B = block.value_or(256);
  // Threads that launch: every thread, or one per block under a guard.
  double P = ls.everyThreadMayLaunch ? threads.value : std::max(1.0, threads.value / B);
  Count child{cfg.defaultTrip, true};
  if (ls.threads)
    if (auto v = evaluateSize(*ls.threads, cfg.sizes)) child = {std::max(1.0, *v), false};
  if (child.assumed)
    out.assumptions.push_back("threads of each child grid at line " + std::to_string(ls.span.begin.line) + " ('" +
                              ls.threads.value_or(ls.grid + " x " + ls.block) + "'): assumed " +
                              human(cfg.defaultTrip) + " on average (set mapping.sizes)");
  LaunchCostInput cost;
  cost.P = P;
  cost.C = child.value;
  cost.skew = cfg.skew;
  // A guard on the child's size: only the parents whose child is inside its
  // bounds launch (set 19, edge gaps: `deg <= 16` on a regular graph, where
  // the model ran a hub's 256 edges serially in one parent thread).
  if (ls.childAtLeast || ls.childAtMost) {
    const double share = cost.bound(ls.childAtLeast.value_or(0), ls.childAtMost.value_or(0));
    out.assumptions.push_back(
        "the launch at line " + std::to_string(ls.span.begin.line) + " runs only for children of " +
        (ls.childAtLeast && ls.childAtMost ? human(*ls.childAtLeast) + " to " + human(*ls.childAtMost)
         : ls.childAtLeast                ? "at least " + human(*ls.childAtLeast)
                                          : "at most " + human(*ls.childAtMost)) +
        " threads (the guard at line " + std::to_string(ls.childBoundSpan.begin.line) + "): " + percent(share) +
        " of the parent threads launch, " + human(cost.C) + " child threads each on average");
    P = cost.P;
  }
  const double C = cost.C, work = P * C;
  const MappingWeights &w = cfg.weights;
  if (ls.blockValue) cost.childBlock = double(*ls.blockValue);
  else if (auto v = evaluateSize(ls.block, cfg.sizes)) cost.childBlock = std::max(1.0, *v);
  // A child grid of constant size has no outlier (kOutlierSkew).
  cost.sizedByData = !(ls.gridValue && ls.blockValue);
  const bool recursive = ls.child == ls.parent;
  cost.recursive = recursive;
  // A child thread that loops runs its loops' trips in steps (outermost
  // loops of the child kernel; a recursion's own loops are its levels).
  if (const Kernel *childKernel = recursive ? nullptr : m.findKernel(ls.child)) {
    cost.branchesOnGather = childKernel->branchesOnGather;
    for (int id : childKernel->loops) {
      const LoopSite &cl = m.loops[size_t(id)];
      if (cl.depth == 0) cost.childSteps += loopTrips(m, cl, cfg, out.assumptions).value;
    }
  }
  const std::string parentWhat = "threads of '" + parent->name + "'", childWhat = "child grid of '" + ls.child + "'";

  out.ranked.reserve(out.ranked.size() + 100);
  for (unsigned T : {0u, 32u, 128u, 512u, 2048u})
    for (unsigned c : {1u, 2u, 4u, 8u})
      for (const std::string agg : {"", "warp", "block", "grid"}) {
        Mapping mp;
        mp.constraints.reserve(5);
        mp.levels.reserve(2);
        mp.threshold = T;
        mp.coarsen = c;
        mp.aggregate = agg;
        std::string id;
        if (T) id += "threshold-" + std::to_string(T);
        if (c > 1) id += std::string(id.empty() ? "" : "+") + "coarsen-" + std::to_string(c);
        if (!agg.empty()) id += std::string(id.empty() ? "" : "+") + "aggregate-" + agg;
        mp.id = id.empty() ? "child-grid" : id;
        if (ex.skips(mp.id)) continue;
        mp.explained = ex.wants(mp.id);
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
        // threshold T follows the power-law tail of the sizes (regular
        // sizes: all or none). In-sample neighbour sum (16k vertices,
        // power-law): threshold-128 measured 0.67 ms, about a thousand
        // launches, where an exponential tail exp(-T / C) gave 5.
        double launchedShare = T ? cost.shareOver(T) : 1.0;
        double serialWork = work * (1 - launchedShare);
        // One launch per warp or block that has a child left to launch: with
        // a share s of launching threads, a group of g launches with
        // probability 1 - (1 - s)^g (in-sample neighbour sum:
        // threshold-128+aggregate-warp measured 0.29 ms, where one launch
        // per 32 launching threads gave 44 us).
        double perLaunch = agg == "warp" ? 32 : agg == "block" ? B : 1;
        perLaunch = std::min(perLaunch, std::max(1.0, P));
        double launches = agg.empty() ? P * launchedShare
                                      : P / perLaunch * (1 - std::pow(1 - launchedShare, perLaunch));
        if (agg == "grid") launches = launchedShare > 0 ? 1 : 0;

        // The launch statement runs P times and each run costs launchCost
        // child-thread units (the paper's weight: intrinsic x executions); a
        // mapping satisfies it by the share of those launches it removes.
        double lsat = P > 0 ? 1.0 - launches / P : 1.0;
        soft(mp, "launch-overhead", true, w.launches, P * cfg.launchCost, lsat, [&] {
          return human(launches) + " device launches instead of " + human(P) + " (one launch ~ " +
                 human(cfg.launchCost) + " child threads of work; " + human(work) + " child threads in all)";
        });
        mp.dop = (work - serialWork) / c + P * (1 - launchedShare);
        std::string pwhy;
        double psat = parallelismSatisfied(mp.dop, cfg.gpu, mp.explained ? &pwhy : nullptr);
        soft(mp, "parallelism", true, w.parallelism, work, psat, pwhy);
        double fs = work > 0 ? serialWork / work : 0;
        double bal = (1 - fs) + fs / (1.0 + cfg.skew * log2of(32));
        soft(mp, "load-balance", false, w.balance, work, bal, [&] {
          return percent(fs) +
                 " of the child work runs serially in parent threads, where a warp waits for its longest child";
        });
        double coal = (1 - fs) + fs * sectorEfficiency(32, 1);
        soft(mp, "coalescing:child", false, w.coalescing, work, coal, [&] {
          return "child threads' consecutive accesses (assumed) become one thread's walk when serialised: " +
                 percent(coal);
        });
        double agGroup = agg == "warp" ? 32 : agg == "block" ? B : !agg.empty() ? std::max(1.0, P * launchedShare) : 1;
        double comb = 1.0 / (1.0 + 0.02 * log2of(agGroup)) * (c > 1 ? C / (c * std::ceil(C / c)) : 1.0);
        soft(mp, "combine", false, w.combine, work, comb, [&] {
          return std::string(!agg.empty() ? "each aggregated child thread finds its parent (search over " +
                                                human(agGroup) + ")"
                                          : "no aggregation") +
                 (c > 1 ? "; coarsening by " + std::to_string(c) + " leaves a partial last step" : "");
        });

        mp.levels.push_back({mp.explained ? parentWhat : std::string(), "x", unsigned(B), "1", 1});
        mp.levels.push_back({mp.explained ? childWhat : std::string(),
                             !agg.empty() ? "aggregated per " + agg : "child grid", 0,
                             c > 1 ? "n" : T ? "all (below T)" : "1", c});
        if (mp.explained)
          mp.summary = mp.id == "child-grid"
                           ? "one child grid per launching thread, as written"
                           : std::string(T ? "children under " + std::to_string(T) + " threads serial" : "") +
                                 (c > 1 ? std::string(T ? ", " : "") + "coarsened by " + std::to_string(c) : "") +
                                 (!agg.empty() ? std::string(T || c > 1 ? ", " : "") + "one launch per " + agg : "");
        finish(mp);
        LaunchShape shape;
        shape.serialShare = fs;
        shape.serialLimit = T;
        shape.coarsen = c;
        shape.outlierLaunched = T > 0;
        shape.deviceLaunches = agg == "grid" ? 0 : launches;
        shape.searchGroup = agGroup;
        shape.aggregatedLaunches = !agg.empty() ? P * launchedShare : 0;
        shape.queued = !agg.empty() ? P * launchedShare : 0;
        // Aggregating per grid launches the children's one grid from the host
        // after a pass that gathers them: two more kernels.
        shape.kernels = 1 + (agg == "grid" ? 2 : 0);
        shape.keepsDeviceLaunch = agg != "grid";
        // A recursion's launches repeat at every level below: removing the
        // parent's launch removes none of theirs.
        if (recursive && shape.deviceLaunches < P) shape.deviceLaunches = P;
        Estimate est = estimateLaunch(cost, shape, cfg.gpu, mp.explained);
        mp.estimateUs = est.us;
        mp.costWhy = est.why;
        if (mp.id == "child-grid") out.originalUs = est.us;
        out.ranked.push_back(std::move(mp));
      }

  // The rewrites' own templates for a device launch: launches promoted to no
  // dynamic parallelism (children up to L threads in the parent thread, the
  // rest queued and run block-wide), and for a kernel that launches itself,
  // the recursion templates.
  auto addTemplate = [&](std::string id, std::string family, unsigned L, const auto &summary, LaunchShape shape) {
    if (ex.skips(id)) return;
    Mapping mp;
    mp.id = std::move(id);
    mp.explained = ex.wants(mp.id);
    mp.family = std::move(family);
    mp.placement = "template";
    mp.lbThreshold = L;
    mp.dop = work;
    if (mp.explained) mp.summary = textOf(summary);
    if (std::string pin = pinViolation(mp, cfg); !pin.empty()) {
      out.pruned.push_back({mp.id, pin});
      return;
    }
    Estimate est = estimateLaunch(cost, shape, cfg.gpu, mp.explained);
    mp.estimateUs = est.us;
    mp.costWhy = est.why;
    mp.levels.push_back({mp.explained ? parentWhat : std::string(), "x", unsigned(B), "1", 1});
    mp.levels.push_back({mp.explained ? childWhat : std::string(), "queued", 0, "all", 1});
    out.ranked.push_back(std::move(mp));
  };
  if (recursive) {
    // Block per child, threads over grandchildren: a launch per node with
    // grandchildren (about half the launching ones, assumed); level-synchronous
    // worklist: no device launch, a host launch per level (log_C of the nodes).
    LaunchShape hier;
    hier.deviceLaunches = P / 2;
    hier.keepsDeviceLaunch = true;
    addTemplate("recursion-block-per-child", "recursion-block-per-child", 0,
                "recursion: a block per child, its threads over the grandchildren", hier);
    LaunchShape flat;
    flat.kernels = 2 * std::max(1.0, std::ceil(std::log(std::max(2.0, work)) / std::log(std::max(2.0, C))));
    flat.queued = work;
    addTemplate("recursion-levels", "recursion-levels", 0, "recursion as a level-synchronous worklist (no device launch)",
                flat);
    return;
  }
  if (!ls.serializable) return;
  struct Template { const char *kind, *what; double kernels; };
  static const Template templates[] = {
      {"two-queues", "launches queued as small (thread-mapped) or large (block-mapped) passes after the parent", 3},
      {"block-buffer", "children up to L threads in the parent thread, larger ones run by the parent's block", 1},
      {"global-buffer", "children up to L threads in the parent thread, larger ones drained block-wide after the parent", 2},
      {"block-launch", "children up to L threads in the parent thread, one device launch per parent block for the rest", 1}};
  for (const Template &tpl : templates)
    for (unsigned L : {32u, 64u, 128u, 256u}) {
      const std::string kind = tpl.kind;
      const bool allQueued = kind == "two-queues";
      // The templates compare a launch's threads as launched (whole child
      // blocks) with L (promote.cuh: launch_threads): with child blocks of
      // Bc threads, only children of at most floor((L - 1) / Bc) x Bc
      // threads stay in their thread (none when Bc >= L).
      const double childBlock = cost.childBlock > 0 ? cost.childBlock : 1;
      const double inThreadMax = std::floor((L - 1) / childBlock) * childBlock;
      const double launchedShare = inThreadMax < 1 ? 1.0 : cost.shareOver(inThreadMax);
      LaunchShape shape;
      // Every template runs the children up to L threads one thread each:
      // in the parent thread, or (two queues) from the thread-mapped queue.
      shape.serialShare = 1 - launchedShare;
      shape.serialLimit = L;
      shape.queued = allQueued ? P : P * launchedShare;
      shape.kernels = tpl.kernels;
      // Block buffer: the parent's block runs its queued launches one after
      // another once its threads are done, each a dependent phase of
      // ceil(threads / B) block-wide steps (in-sample neighbour sum on the
      // H200: 256 one-block launches per 256-thread block, 166-188 us for
      // every L, where the model had 25-47 us).
      if (kind == "block-buffer") {
        shape.blockChain = std::min(B, std::max(1.0, P)) * launchedShare;
        shape.blockChainSteps = std::max(1.0, std::ceil(std::ceil(C / childBlock) * childBlock / B));
      }
      // Global buffer and the two queues' large one: a pass of 16 blocks of
      // 64 threads per SM (promote.cuh drain_grid) takes the queued
      // launches with a block stride, each block its share one after
      // another, ceil(threads / 64) steps each.
      if (kind == "global-buffer" || allQueued) {
        const double drainBlocks = 16.0 * cfg.gpu.sms;
        shape.blockChain = std::ceil(P * launchedShare / drainBlocks);
        shape.blockChainSteps = std::max(1.0, std::ceil(std::ceil(C / childBlock) * childBlock / 64));
      }
      // A queued child runs block-wide: in the block buffer by the parent's
      // block; otherwise by a 64-thread block (promote.cuh drain_grid, and
      // dpar-opt's child grid: kBlockMappedThreads).
      shape.blockWideThreads = kind == "block-buffer" ? B : 64;
      shape.keepsDeviceLaunch = kind == "block-launch";
      if (kind == "block-launch")
        shape.deviceLaunches = std::max(1.0, P / B) * (1 - std::pow(1 - launchedShare, std::min(B, std::max(1.0, P))));
      addTemplate(std::string("promoted-") + tpl.kind + "-" + std::to_string(L), std::string("promoted-") + tpl.kind, L,
                  [&] { return std::string(tpl.what) + " (L = " + std::to_string(L) + ")"; }, shape);
    }
}

} // namespace nestor::mapping_detail
