// Pieces the mapping model's files share (Mapping.h): the per-target context
// (how many threads and iterations, assumed or known), the constraint helpers
// and the final scoring. MappingLoops.cpp enumerates the mappings of loops,
// MappingLaunches.cpp those of device-side launches, MappingModel.cpp ranks.
#pragma once
#include "nestor/Mapping.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

namespace nestor::mapping_detail {

/// A count the model needs, and whether it had to assume it.
struct Count {
  double value = 0;
  bool assumed = false;
};

/// Threads a kernel runs: grid x block of its first host launch evaluated with
/// the configured sizes, else cfg.defaultThreads. `block` gets the block's
/// threads when known.
Count kernelThreads(const FileModel &m, const Kernel &k, const MappingConfig &cfg, std::optional<unsigned> &block,
                    std::vector<std::string> &assumptions);

/// Average trip count of a loop: constant, (upper - lower) / step evaluated
/// with the sizes, a "file:line" entry of the sizes, else cfg.defaultTrip.
/// "file:line" of a loop, the key of mapping.sizes and mapping.longest.
std::string loopKey(const FileModel &m, const LoopSite &l);
Count loopTrips(const FileModel &m, const LoopSite &l, const MappingConfig &cfg, std::vector<std::string> &assumptions);

/// Fraction of the 32-byte sectors a warp's 4-byte accesses fetch that it
/// uses, when its 32 lanes form `runs` runs of `runLength` consecutive elements.
inline double sectorEfficiency(double runs, double runLength) {
  double sectors = runs * std::ceil(runLength * 4.0 / 32.0);
  return sectors <= 0 ? 1.0 : std::min(1.0, 4.0 / sectors);
}

/// min(1, dop / min) x min(1, max / dop): the paper's MIN_DOP (SMs x resident
/// threads) and MAX_DOP (100 x MIN_DOP). Writes the reason to `why` if given.
double parallelismSatisfied(double dop, const GpuTarget &gpu, std::string *why);

inline double log2of(double x) { return x <= 1 ? 0.0 : std::log2(x); }

/// Which candidates of one ranking pass get their texts (MappingTexts): all,
/// none (the ranking pass when only a few are shown), or only the named ones,
/// in which case the pass enumerates only those (explainMappings).
struct Explaining {
  bool all = true;
  const std::vector<std::string> *only = nullptr; ///< a few ids: a linear search is cheapest
  bool named(const std::string &id) const { return only && std::find(only->begin(), only->end(), id) != only->end(); }
  bool wants(const std::string &id) const { return all || named(id); }
  /// A pass for named mappings skips the others altogether.
  bool skips(const std::string &id) const { return !all && only && !named(id); }
};

/// A text of an explanation: a string, or a callable that makes one, called
/// only for an explained mapping (so an unexplained one builds no string).
template <class Text> std::string textOf(const Text &t) {
  if constexpr (std::is_invocable_v<const Text &>) return t();
  else return std::string(t);
}

/// Appends a soft constraint (its id and reason only when `m` is explained).
template <class Id, class Why>
void soft(Mapping &m, const Id &id, bool global, double alpha, double executions, double satisfied, const Why &why) {
  m.constraints.push_back({m.explained ? textOf(id) : std::string(), false, global, alpha * executions,
                           std::max(0.0, std::min(1.0, satisfied)), m.explained ? textOf(why) : std::string()});
}
/// Appends a hard constraint that holds.
template <class Id, class Why> void hard(Mapping &m, const Id &id, bool global, const Why &why) {
  m.constraints.push_back(
      {m.explained ? textOf(id) : std::string(), true, global, 0, 1, m.explained ? textOf(why) : std::string()});
}

/// Score = sum(weight x satisfied) / sum(weight) over the soft constraints.
void finish(Mapping &m);

/// "1.2k", "3.4M": counts in explanations.
std::string human(double v);
std::string percent(double v);

/// The pins of cfg that `m` violates ("" if none).
std::string pinViolation(const Mapping &m, const MappingConfig &cfg);

// ---- the cost model in physical units (MappingCost.cpp)

/// How one global access of a loop maps onto sectors.
enum class AccessShape {
  Coalesced,        ///< contiguous across threads and along the loop
  ThreadContiguous, ///< contiguous across outer iterations (threads)
  LoopContiguous,   ///< contiguous along the loop
  Strided,          ///< neither: a sector per lane
  Repeated,         ///< the same address in every thread (varies with the loop only): cached
  Gather,           ///< an index read from memory
};
struct LoopAccessCost {
  AccessShape shape;
  bool alongLoop = false;     ///< ThreadContiguous: varies with the loop too
  bool acrossThreads = false; ///< LoopContiguous: varies with the thread too
  /// LoopContiguous: elements between consecutive iterations' addresses
  /// (ArrayAccess::inductionStride; 1: unit stride).
  double stride = 1;
  /// LoopContiguous with a stride: the accesses of the loop to the same
  /// array with that stride (`c[2 * k]`, `c[2 * k + 1]`: 2), at most the
  /// stride; together they use the sectors they fetch.
  double siblings = 1;
  /// Another access of the loop fetches the same elements a few iterations
  /// apart or in the same sectors (ArrayAccess::sameDataAs): this one finds
  /// them in a cache and moves no DRAM bytes.
  bool cachedTwin = false;
  /// Bytes of one element (ArrayAccess::elementBytes; 4 where unknown).
  double bytes = 4;
};
struct LoopCostInput {
  double N0 = 1, T = 1;      ///< outer iterations (threads), mean trip count
  bool irregular = false, reduces = false, scans = false;
  double skew = 0.5;
  /// The longest trip of an irregular loop over the whole input, when the
  /// user gives it (MappingConfig::longest); 0: extrapolated from the skew.
  double longest = 0;
  unsigned B = 256;
  double localArrayBytes = 0; ///< thread-local arrays the loop uses (moved to shared memory when spread)
  std::vector<LoopAccessCost> accesses;
  double wait(double group) const;
};
/// A mapping's shape as the cost model needs it: o outer iterations x `lanes`
/// lanes per warp.
struct LoopShape {
  std::string placement;
  unsigned slaves = 1, span = 1, split = 1;
  double o = 32, lanes = 1;
};
struct LaunchCostInput {
  double P = 1, C = 1;     ///< launching threads, child threads per launch
  double childBlock = 0;   ///< threads per block of a child grid (0: unknown, taken as C)
  double skew = 0.5;
  double childBytes = 16;  ///< bytes one child thread reads or writes (assumed)
  /// Dependent steps one child thread runs: 1 for a straight-line body, plus
  /// the trip counts of the child kernel's loops (a triangle count's
  /// intersection walks a list in every child thread).
  double childSteps = 1;
  /// The child is the parent kernel itself: its device launches nest, each
  /// level's launched from grids that the level above launched.
  bool recursive = false;
  /// The child kernel branches on a gathered value (Kernel::branchesOnGather):
  /// run serially, each of its steps waits for two loads in turn.
  bool branchesOnGather = false;
  /// The child's grid and block are not both compile-time constants: its
  /// size may be read from data, and one child may be an outlier (a hub).
  bool sizedByData = true;
  /// The longest of the P children: C for a constant child grid; otherwise
  /// a power-law tail C x P^skew (as a loop's longest row,
  /// LoopCostInput::wait), with skew at least kOutlierSkew.
  double longestChild() const;
  /// The longest of P children of the stated skew alone, C x P^skew: what a
  /// threshold leaves serial, where an outlier over it is launched.
  double longestOfTail() const;
  /// The share of the children over `limit` threads: sizes log-normal with
  /// mean C and spread logSpread(); regular sizes (skew 0): all or none.
  double shareOver(double limit) const;
  /// The sigma of the sizes' logarithm, from the stated skew.
  double logSpread() const;
  /// Only children of `atLeast` to `atMost` threads are launched (a guard
  /// around the launch, LaunchSite::childAtLeast / childAtMost; 0: no
  /// bound): P becomes the parents that launch, C their children's mean,
  /// and shareOver and the longest child follow the bounded sizes. Returns
  /// the share of the parents that launch.
  double bound(double atLeast, double atMost);
  double boundLow = 0, boundHigh = 0; ///< as given to bound(); 0: none
  double unboundedC = 0;             ///< C before bound() (0: not bounded)
};
struct LaunchShape {
  double serialShare = 0;  ///< share of the child work run serially in parent threads
  unsigned serialLimit = 0;///< the longest child run serially (a threshold), 0: any
  double deviceLaunches = 0;
  double searchGroup = 1;  ///< an aggregated child thread's search for its parent, over this many records
  double aggregatedLaunches = 0; ///< launches aggregated into shared grids (whose threads search)
  double queued = 0;       ///< children queued with an atomic
  double blockChain = 0;   ///< queued launches a parent block runs one after another
  double blockChainSteps = 1; ///< block-wide steps of each
  double kernels = 1;      ///< kernels launched from the host
  /// Threads of the one block that runs a queued child (0: no child runs
  /// block-wide): its longest child is a chain of ceil(size / threads) steps.
  double blockWideThreads = 0;
  /// The child launch statement stays in the parent kernel (a threshold, a
  /// launch per warp or block, the original): a child over the threshold is
  /// launched, and the grid waits for it (GpuTarget::deviceLaunchLatencyUs).
  bool keepsDeviceLaunch = false;
  /// Child grids coarsened by this factor: a block runs `coarsen` child
  /// blocks in turn (of its own child, or of the aggregated grid).
  double coarsen = 1;
  /// A threshold's child over the limit is launched: the longest serial
  /// child is the stated tail's (LaunchCostInput::longestOfTail), not an
  /// outlier's. The drained templates keep the outlier bound, which is what
  /// placed them behind threshold + aggregate-grid on regular graphs with a
  /// hub (training, H200: 1.2-3.0x slower) and which no other term explains.
  bool outlierLaunched = false;
};
struct Estimate {
  double us = 0;
  std::string why;
};
// Each estimate writes its `why` only when `explain` is set.
Estimate estimateLoop(const LoopCostInput &in, const LoopShape &s, const GpuTarget &g, bool explain);
/// Load-balancing templates: rows over L iterations delayed and run block-wide.
/// kind: two-queues | block-buffer | global-buffer | block-launch.
Estimate estimateDelayedRows(const LoopCostInput &in, const std::string &kind, unsigned L, const GpuTarget &g,
                             bool explain);
Estimate estimateMergePath(const LoopCostInput &in, const GpuTarget &g, bool explain);
Estimate estimateLaunch(const LaunchCostInput &in, const LaunchShape &s, const GpuTarget &g, bool explain);
/// "12 us", "1.40 ms".
std::string microseconds(double v);

void rankLoop(const FileModel &m, const LoopSite &l, const MappingConfig &cfg, const Explaining &ex,
              TargetMappings &out);
void rankLaunch(const FileModel &m, const LaunchSite &l, const MappingConfig &cfg, const Explaining &ex,
                TargetMappings &out);

} // namespace nestor::mapping_detail
