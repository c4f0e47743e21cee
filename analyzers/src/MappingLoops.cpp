// Mappings of a kernel's threads (level 0) x a parallel loop inside them
// (level 1): the search of Algorithm 1 over placements of the loop (serial in
// each thread; on the block's y dimension with S slaves; on S consecutive
// lanes; on the whole warp with dynamic tasks), S, Span(n) of level 0 and
// Split(k) of a reducing loop; then the hard and soft constraints of Table II,
// adapted to CUDA (docs/mapping.md).
#include "MappingParts.h"
#include "nestor/Inference.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

namespace nestor::mapping_detail {

namespace {

struct Shape {
  std::string placement; // sequential | y | lanes | warp-tasks
  unsigned slaves = 1;
  // The placement as flags: the search below asks it a dozen times per
  // candidate, and a string comparison each time showed in the profile.
  bool seq() const { return placement == "sequential"; }
  bool tasks() const { return placement == "warp-tasks"; }
  bool y() const { return placement == "y"; }
};

std::string describe(const Mapping &mp, unsigned originalBlock) {
  std::string s;
  if (mp.placement == "sequential") s = "1D: the loop runs serially in each thread";
  else if (mp.placement == "y")
    s = "inter-warp: " + std::to_string(mp.slaves) + " slaves on y, block (" + std::to_string(mp.mastersPerBlock) + ", " +
        std::to_string(mp.slaves) + ")";
  else if (mp.placement == "lanes")
    s = "intra-warp: " + std::to_string(mp.slaves) + " consecutive lanes per iteration, block " +
        std::to_string(mp.blockThreads);
  else s = "warp tasks (CTE): the warp shares its threads' iterations";
  if (mp.span > 1) s += ", Span(" + std::to_string(mp.span) + ") outer iterations per master";
  if (mp.split > 1) s += ", Split(" + std::to_string(mp.split) + ") with a combiner";
  if (mp.reshaped) s += ", launch reshaped from " + std::to_string(originalBlock) + " threads per block";
  return s;
}

/// The bytes of an access's element the cost model counts: its size where
/// the analysis knows it, else 4 (a float or an int).
double elementBytes(const ArrayAccess &a) { return a.elementBytes > 0 ? double(a.elementBytes) : 4.0; }

bool validPragma(const FileModel &m, const LoopSite &l) {
  return l.pragma >= 0 && size_t(l.pragma) < m.pragmas.size() && m.pragmas[size_t(l.pragma)].isParallelFor &&
         m.pragmas[size_t(l.pragma)].valid();
}

} // namespace

void rankLoop(const FileModel &m, const LoopSite &l, const MappingConfig &cfg, const Explaining &ex,
              TargetMappings &out) {
  const Kernel *k = m.findKernel(l.function);
  if (!k || !k->isGlobal) return;
  // Only loops whose iterations may run in parallel are nested parallelism.
  if (!isNpCandidate(l) && !validPragma(m, l)) return;
  out.kernel = k->name;
  out.line = l.span.begin.line;

  std::optional<unsigned> block;
  Count threads = kernelThreads(m, *k, cfg, block, out.assumptions);
  Count trips = loopTrips(m, l, cfg, out.assumptions);
  const unsigned B = block.value_or(256);
  if (!block) out.assumptions.push_back("block of '" + k->name + "' not known at compile time: assumed 256 threads");
  unsigned limit = cfg.gpu.maxThreadsPerBlock;
  std::string limitWhy = std::to_string(limit) + " threads per block";
  if (k->launchBoundsMaxThreadsValue && *k->launchBoundsMaxThreadsValue < limit) {
    limit = unsigned(*k->launchBoundsMaxThreadsValue);
    limitWhy = "__launch_bounds__(" + std::to_string(limit) + ")";
  }
  unsigned regs = cfg.registersPerThread;
  std::string regsFrom = "estimated";
  if (auto it = cfg.registersByKernel.find(k->name); it != cfg.registersByKernel.end() && it->second) {
    regs = it->second;
    regsFrom = "ptxas";
  } else if (!cfg.registersNote.empty()) {
    out.assumptions.push_back("registers per thread of '" + k->name + "': estimated " + std::to_string(regs) + " (" +
                              cfg.registersNote + ")");
  }
  if (regs > 0 && cfg.gpu.registersPerSm / regs < limit) {
    limit = cfg.gpu.registersPerSm / regs;
    limitWhy = std::to_string(cfg.gpu.registersPerSm) + " registers per SM at " + std::to_string(regs) + " per thread (" +
               regsFrom + ")";
  }
  const bool irregular = l.tripCount == TripCountClass::Irregular;
  const bool reduces = !l.reductions.empty(), scans = !l.scans.empty();
  const double N0 = threads.value, T = std::max(1.0, trips.value), E = N0 * T;
  // In a skewed irregular loop most iterations sit in the long trips: lanes
  // and combining are judged at the work-weighted trip count (calibrated on
  // bench/mapping, docs/mapping.md; skew 0 for near-regular data).
  const double Tw = irregular ? T * (1.0 + cfg.skew * log2of(32)) : T;
  const MappingWeights &w = cfg.weights;
  uint64_t staticShared = 0, localBytes = 0;
  for (const SharedDecl &s : k->shared) staticShared += s.sizeBytes;
  for (const LocalArray &a : k->localArrays)
    if (std::find(l.localArrays.begin(), l.localArrays.end(), a.name) != l.localArrays.end()) localBytes += a.sizeBytes;

  // What the cost model reads (MappingCost.cpp): the accesses' shapes.
  LoopCostInput cost;
  cost.N0 = N0;
  cost.T = T;
  cost.irregular = irregular;
  cost.reduces = reduces;
  cost.scans = scans;
  cost.skew = cfg.skew;
  if (auto it = cfg.longest.find(loopKey(m, l)); irregular && it != cfg.longest.end()) cost.longest = it->second;
  cost.B = B;
  cost.localArrayBytes = double(localBytes);
  for (const ArrayAccess &a : l.accesses) {
    if (a.memorySpace == "shared" || a.memorySpace == "local") continue;
    if (!a.dependsOnThread && !a.dependsOnInduction) continue; // one address: hoisted or broadcast
    LoopAccessCost c{AccessShape::Strided};
    if (a.indirect) c.shape = AccessShape::Gather;
    else if (a.memorySpace == "constant" || !a.dependsOnThread) c.shape = AccessShape::Repeated;
    else if (a.threadContiguous && a.inductionContiguous) c.shape = AccessShape::Coalesced;
    else if (a.threadContiguous) c = {AccessShape::ThreadContiguous, a.dependsOnInduction, false};
    else if (a.inductionContiguous) c = {AccessShape::LoopContiguous, false, a.dependsOnThread};
    // A small constant stride along the loop (`c[2 * k]`, `c[2 * k + 1]`):
    // the thread still walks its memory in order, a sector serving several
    // iterations. Seventh held-out set (H100): a Fourier series reading two
    // interleaved coefficients per term, costed a sector per lane and step
    // (1.6 GB for 201 MB), had every variant and the original tied at 555 us
    // and kept the original, where 16 intra-warp slaves measured 2.4x faster.
    else if (a.inductionStride > 1 && a.inductionStride * elementBytes(a) < 32 && !a.threadContiguous) {
      const auto siblings = std::count_if(l.accesses.begin(), l.accesses.end(), [&](const ArrayAccess &b) {
        return b.array == a.array && b.inductionStride == a.inductionStride && !b.indirect && !b.threadContiguous &&
               b.isWrite == a.isWrite;
      });
      c = {AccessShape::LoopContiguous, false, a.dependsOnThread, double(a.inductionStride),
           double(std::min<long>(siblings, a.inductionStride))};
    }
    else if (!a.dependsOnInduction) continue; // the thread's own element, loaded once before the loop
    // A stencil along the loop (`p[t * n + i]`, `p[(t - 1) * n + i]`): the
    // later read finds the elements in a cache. Eighth held-out set (H100):
    // realized variance over 1024 time-major steps, whose two reads of each
    // price were counted twice (537 MB for 268 MB), had every variant
    // bandwidth-bound at the original's 187 us and kept it, where slaves
    // measured up to 3.0x faster. A strided walk's siblings already share
    // their sectors (above).
    c.cachedTwin = a.sameDataAs >= 0 && c.siblings <= 1;
    c.bytes = elementBytes(a);
    cost.accesses.push_back(c);
  }

  const std::string threadsWhat = "threads of '" + k->name + "'";
  const std::string loopWhat = "loop at line " + std::to_string(l.span.begin.line) + " (" + l.inductionVar + ")";
  out.ranked.reserve(out.ranked.size() + 180);
  std::vector<Shape> shapes{{"sequential", 1}};
  for (unsigned s : {2u, 4u, 8u, 16u, 32u}) shapes.push_back({"y", s});
  for (unsigned s : {2u, 4u, 8u, 16u, 32u}) shapes.push_back({"lanes", s});
  if (irregular && reduces && !scans) shapes.push_back({"warp-tasks", 32});

  for (const Shape &shape : shapes) {
    const bool seq = shape.seq(), tasks = shape.tasks(), onY = shape.y();
    for (unsigned n : {1u, 2u, 4u, 8u})
      for (unsigned split : {1u, 2u, 4u, 8u}) {
        // Split(k) exists for a Span(all) level that reduces (the paper's Figure 6c).
        if (split > 1 && (!reduces || scans || seq || tasks)) continue;
        Mapping mp;
        mp.constraints.reserve(4 + l.accesses.size() + 5);
        mp.levels.reserve(2);
        mp.placement = shape.placement;
        mp.slaves = shape.slaves;
        mp.span = n;
        mp.split = split;
        mp.id = seq ? "sequential" : tasks ? "warp-tasks" : shape.placement + "-" + std::to_string(shape.slaves);
        if (n > 1) mp.id += "/span-" + std::to_string(n);
        if (split > 1) mp.id += "/split-" + std::to_string(split);
        if (ex.skips(mp.id)) continue;
        mp.explained = ex.wants(mp.id);
        auto prune = [&](std::string why) { out.pruned.push_back({mp.id, std::move(why)}); };

        // ---- hard constraints
        if (!seq && !l.barriers.empty()) {
          prune("a barrier in the loop (line " + std::to_string(l.barriers.front().begin.line) +
                ") needs every thread of the block at it: only the serial loop keeps that");
          continue;
        }
        if (!seq && (l.hasWarpIntrinsics || !k->warpIntrinsics.empty())) {
          prune("warp intrinsics in '" + k->name + "': spreading the loop changes which threads share a warp");
          continue;
        }
        if (n > 1 && !k->barriers.empty()) {
          prune("Span(" + std::to_string(n) + ") changes which threads meet at " + k->barriers.front().name + " (line " +
                std::to_string(k->barriers.front().span.begin.line) + ")");
          continue;
        }
        unsigned masters = B;
        if (!seq && !tasks && B * shape.slaves > limit) {
          masters = 0;
          for (unsigned d = 1; d <= B; ++d)
            if (B % d == 0 && d * shape.slaves <= limit) masters = d;
          if (masters == 0) {
            prune(std::to_string(shape.slaves) + " slaves do not fit " + limitWhy);
            continue;
          }
        }
        mp.mastersPerBlock = masters;
        mp.reshaped = masters < B;
        mp.blockThreads = seq || tasks ? B : masters * shape.slaves;
        if (seq || tasks) {
          if (B > limit) {
            prune("the original block of " + std::to_string(B) + " threads exceeds " + limitWhy);
            continue;
          }
        }
        hard(mp, "block-limit", true, [&] {
          return std::to_string(mp.blockThreads) + " threads per block within " + limitWhy +
                 (mp.reshaped ? " (reshaped: " + std::to_string(masters) + " masters per block instead of " +
                                    std::to_string(B) + ")"
                              : "");
        });
        uint64_t shared = staticShared + (!seq && localBytes ? std::min<uint64_t>(localBytes, 384) * masters : 0);
        if (shared > cfg.gpu.sharedPerBlock) {
          prune(std::to_string(shared) + " bytes of shared memory per block exceed " +
                std::to_string(cfg.gpu.sharedPerBlock));
          continue;
        }
        hard(mp, "shared-memory", true, [&] { return std::to_string(shared) + " bytes of shared memory per block"; });
        if (std::string pin = pinViolation(mp, cfg); !pin.empty()) {
          prune(pin);
          continue;
        }

        // ---- the warp's shape: o outer iterations x `lanes` lanes each
        double o, lanes;
        if (seq) { o = std::min(32u, B); lanes = 1; }
        else if (onY) {
          o = std::min(32u, masters);
          lanes = masters >= 32 ? 1 : std::min<double>(shape.slaves, 32.0 / masters);
        } else if (!tasks) { o = 32.0 / shape.slaves; lanes = shape.slaves; } // lanes
        else { o = std::max(1.0, std::min(32.0, std::floor(32.0 / T))); lanes = 32.0 / o; }

        // ---- soft constraints, weighted by how often the code runs
        for (const ArrayAccess &a : l.accesses) {
          if (a.memorySpace == "shared" || a.memorySpace == "local" || a.memorySpace == "constant") continue;
          if (a.indirect) continue; // a gather costs the same under every mapping
          if (!a.dependsOnThread && !a.dependsOnInduction) continue; // one address: a broadcast everywhere
          // The warp's runs along the contiguous level (runLength 0: said in `along` alone).
          double eff = 1, runs = 1, runLength = 0;
          const char *along = "contiguous along both levels";
          if (a.threadContiguous && a.inductionContiguous) {
            eff = 1;
          } else if (a.threadContiguous) {
            along = "contiguous across outer iterations";
            runs = a.dependsOnInduction ? lanes : 1;
            runLength = o;
            eff = sectorEfficiency(runs, o);
          } else if (a.inductionContiguous) {
            along = "contiguous across loop iterations";
            runs = a.dependsOnThread ? o : 1;
            runLength = lanes;
            eff = sectorEfficiency(runs, lanes);
          } else {
            along = "strided: 32 runs of 1 per warp";
            eff = sectorEfficiency(32, 1);
          }
          soft(mp, [&] { return "coalescing:" + a.array + "[" + a.index + "]"; }, false, w.coalescing, E, eff, [&] {
            return along + (runLength > 0 ? ": " + human(runs) + " run(s) of " + human(runLength) + " per warp" : "") +
                   " -> " + percent(eff) + " of each 32-byte sector used (" + human(E) + " accesses)";
          });
        }

        double dop = seq || tasks ? N0 / n : N0 / n * shape.slaves * split;
        mp.dop = dop;
        std::string pwhy;
        double psat = parallelismSatisfied(dop, cfg.gpu, mp.explained ? &pwhy : nullptr);
        soft(mp, "parallelism", true, w.parallelism, E, psat, pwhy);

        double perGroup = Tw / split;
        // CTE: every round of 32 fine tasks (one step of loop body per lane)
        // costs an owner search and a segmented combination, 2 x log2(32)
        // steps, against about 4 steps of body.
        const double cteRound = 2 * log2of(32) / 4;
        double util = seq ? 1.0 : tasks ? 1.0 / (1.0 + cteRound)
                                        : perGroup / (shape.slaves * std::ceil(perGroup / shape.slaves));
        soft(mp, "lane-use", false, w.utilisation, E, util, [&] {
          return seq ? "one thread per iteration: no idle slaves"
                 : tasks ? "fine tasks packed across the warp, each round of 32 paying an owner search and a "
                           "segmented combination (~" + human(2 * log2of(32)) + " steps against ~4 of body)"
                         : human(perGroup) + " iterations over " + std::to_string(shape.slaves) + " lanes: " +
                               percent(util) + " of lane-steps have work";
        });

        double wait = seq || !tasks ? o : 1;
        double bal = irregular ? 1.0 / (1.0 + cfg.skew * log2of(wait) / std::sqrt(double(n))) : 1.0;
        soft(mp, "load-balance", false, w.balance, E, bal, [&] {
          return !irregular ? "trip count " + std::string(spelling(l.tripCount)) + ": every lane waits as long"
                 : tasks    ? std::string("irregular: the warp shares the work of its threads")
                            : "irregular: a warp waits for the longest of " + human(wait) + " outer iterations" +
                               (n > 1 ? " (each the sum of " + std::to_string(n) + ")" : "");
        });

        double comb = 1;
        std::string cwhy;
        if (mp.explained) cwhy = "nothing to combine";
        if ((reduces || scans) && !seq) {
          double c = onY ? 4 : tasks ? 2 : 1;
          if (scans) c *= 2;
          // Slaves combine once per outer iteration; CTE's warp combines
          // per owner after every round of 32 fine tasks (one per lane).
          double perLane = tasks ? 1.0 : Tw / (double(shape.slaves) * split);
          comb = perLane / (perLane + c * log2of(shape.slaves));
          if (mp.explained)
            cwhy = std::string(scans ? "scan" : "reduction") + " over " + std::to_string(shape.slaves) + " lanes (" +
                 (onY ? "shared memory and barriers" : tasks ? "segmented per owner, every round" : "shuffles") +
                 ") against " + human(perLane) + " iteration(s) per lane" + (tasks ? " per round" : "");
          if (split > 1) {
            comb *= perLane / (perLane + 8);
            if (mp.explained) cwhy += "; Split(" + std::to_string(split) + ") adds a combiner kernel over the partials";
          }
        }
        soft(mp, "combine", false, w.combine, E, comb, cwhy);

        double bs = std::min(1.0, mp.blockThreads / 64.0) * (mp.blockThreads % 32 ? 0.75 : 1.0);
        soft(mp, "block-size", true, w.blockSize, E, bs,
             [&] { return std::to_string(mp.blockThreads) + " threads per block (at least 64, whole warps)"; });

        mp.levels.push_back({mp.explained ? threadsWhat : std::string(), "x", seq || tasks ? B : masters,
                             n > 1 ? "n" : "1", n});
        mp.levels.push_back({mp.explained ? loopWhat : std::string(),
                             seq ? "serial" : onY ? "y" : "lanes", shape.slaves,
                             split > 1 ? "split" : "all", split});
        if (mp.explained) mp.summary = describe(mp, B);
        finish(mp);
        Estimate est =
            estimateLoop(cost, {mp.placement, mp.slaves, mp.span, mp.split, o, lanes}, cfg.gpu, mp.explained);
        mp.estimateUs = est.us;
        mp.costWhy = est.why;
        if (seq && n == 1 && split == 1) out.originalUs = est.us;
        out.ranked.push_back(std::move(mp));
      }
  }

  // The rewrites' own templates for irregular loops (irregular-loop-and-
  // recursion-templates.md; merge-path, Merrill and Garland SC'16): not
  // placements of the paper's search, but mappings all the same (long rows
  // block-wide, the rest per thread; or rows and iterations merged evenly).
  if (!irregular || !l.barriers.empty() || l.hasWarpIntrinsics || !k->warpIntrinsics.empty()) return;
  struct Template { const char *kind, *what; };
  static const Template templates[] = {
      {"two-queues", "rows classified into a small and a large queue, the large run block-wide (3 kernels)"},
      {"block-buffer", "long rows delayed to a per-block buffer and run by the block (1 kernel)"},
      {"global-buffer", "long rows delayed to a global buffer and run block-wide by a second kernel"},
      {"block-launch", "long rows delayed per block and run by one device launch per block"}};
  for (const Template &tpl : templates)
    for (unsigned L : {32u, 64u, 128u, 256u}) {
      Mapping mp;
      mp.family = tpl.kind;
      mp.lbThreshold = L;
      mp.id = std::string("delayed-") + tpl.kind + "-" + std::to_string(L);
      if (ex.skips(mp.id)) continue;
      mp.explained = ex.wants(mp.id);
      mp.placement = "delayed";
      mp.mastersPerBlock = mp.blockThreads = B;
      mp.dop = N0;
      if (mp.explained) mp.summary = std::string(tpl.what) + ", over " + std::to_string(L) + " iterations";
      mp.levels.push_back({mp.explained ? threadsWhat : std::string(), "x", B, "1", 1});
      mp.levels.push_back({mp.explained ? loopWhat : std::string(),
                           "serial up to " + std::to_string(L) + ", block-wide beyond", B, "all", 1});
      if (std::string pin = pinViolation(mp, cfg); !pin.empty()) {
        out.pruned.push_back({mp.id, pin});
        continue;
      }
      Estimate est = estimateDelayedRows(cost, tpl.kind, L, cfg.gpu, mp.explained);
      mp.estimateUs = est.us;
      mp.costWhy = est.why;
      out.ranked.push_back(std::move(mp));
    }
  if (reduces && !scans && !ex.skips("merge-path")) {
    Mapping mp;
    mp.family = mp.id = mp.placement = "merge-path";
    mp.explained = ex.wants(mp.id);
    mp.dop = double(cfg.gpu.sms) * cfg.gpu.threadsPerSm;
    if (mp.explained) mp.summary = "merge-path: rows and iterations split evenly over a persistent grid (2 kernels)";
    mp.levels.push_back({mp.explained ? threadsWhat + " (rows)" : std::string(), "merged", 0, "n", 1});
    mp.levels.push_back({mp.explained ? loopWhat : std::string(), "merged", 0, "n", 1});
    if (std::string pin = pinViolation(mp, cfg); !pin.empty()) {
      out.pruned.push_back({mp.id, pin});
      return;
    }
    Estimate est = estimateMergePath(cost, cfg.gpu, mp.explained);
    mp.estimateUs = est.us;
    mp.costWhy = est.why;
    out.ranked.push_back(std::move(mp));
  }
}

} // namespace nestor::mapping_detail
