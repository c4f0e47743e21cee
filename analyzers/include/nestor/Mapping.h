// The static mapping model of locality-aware-mapping-of-nested-patterns.md
// (Lee et al., MICRO'14, sections III-IV), adapted to CUDA kernels.
//
// A nested pattern in Nestor's model is one of
//   - a kernel's threads (level 0) x a loop inside them (level 1), and
//   - a kernel's threads (level 0) x the child grid each one launches (level 1).
// A mapping says, per level, which thread dimension it takes, how many
// threads per block, and its span: Span(1) (one point per thread), Span(n)
// (n points per thread), Span(all) (the level is covered by the threads of one
// group, e.g. a loop by S slaves), Split(k) (a Span(all) level that reduces,
// split over k groups with a combiner, as in the paper's Figure 6c).
//
// Hard constraints prune (block size, __launch_bounds__, registers, shared
// memory, barriers that need a level inside one block); soft constraints score
// (coalescing, parallelism, lane use, load balance, combining cost, block
// size), each weighted by how often the code it concerns runs (the trip
// counts the analysis inferred, or .nestor.yaml `mapping.sizes`). Every score
// is explained: each constraint says how well the mapping satisfies it and why.
//
// The model reads the plain-data FileModel only (no AST), so it is cheap and
// testable on hand-made models. Which rewrite realises a mapping is the
// rewriters' business (rewriters/mapping/).
#pragma once
#include "nestor/Model.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nestor {

/// The GPU the model targets (its occupancy limits).
struct GpuTarget {
  std::string name = "h100";
  unsigned sms = 132;
  unsigned threadsPerSm = 2048;
  unsigned maxThreadsPerBlock = 1024;
  unsigned registersPerSm = 65536;
  unsigned sharedPerBlock = 48 * 1024; ///< static shared memory per block
  // The cost model's physical figures (docs/mapping.md, "Estimated time").
  double bandwidthGBs = 2900;  ///< sustained device-to-device copy bandwidth, GB/s
  double deviceLaunchUs = 0.5; ///< one device-side launch (CUDA 13 / Hopper: ~0.5 us, docs/mapping.md)
  /// What a grid that launches at all waits for its first child: the launch's
  /// latency on the critical path, paid once however many launches follow
  /// (H200, CUDA 13: ~15 us, docs/mapping.md).
  double deviceLaunchLatencyUs = 15;
  double kernelUs = 2.0;       ///< the shortest kernel: what one more kernel in a variant costs
  double latencyUs = 0.7;      ///< a global load under load (Little's law: bytes in flight / latency)
  double clockGhz = 1.75;      ///< SM clock: 4 warp instructions per SM per cycle
};
/// h100, h200, gh200, a100, l40s, v100, t4 (case-insensitive).
std::optional<GpuTarget> gpuTargetNamed(const std::string &name);
/// Where a project keeps the GPU-parameters file when `.nestor.yaml` does not
/// name one: this path, relative to the directory of `.nestor.yaml`.
inline constexpr const char *kDefaultGpuParamsPath = ".nestor/gpu-params.json";
/// Reads a GPU-parameters file (the JSON nestor-gpu-probe writes: schema
/// "nestor-gpu-params", keys sms, threads_per_sm, registers_per_sm,
/// shared_per_block, clock_ghz, bandwidth_gbs, kernel_us, device_launch_us,
/// device_launch_latency_us, latency_us, each optional) over `gpu`. Errors name the file and the key.
llvm::Error applyGpuParams(const std::string &path, GpuTarget &gpu);

/// Intrinsic weights of the soft constraints (the paper's alpha).
struct MappingWeights {
  double coalescing = 10;  ///< the paper gives memory coalescing the highest weight
  double parallelism = 6;
  double utilisation = 4;  ///< lanes that have work
  double balance = 4;      ///< irregular trip counts: lanes waiting for the longest
  double combine = 2;      ///< cost of combining partial results (reductions, Split)
  double launches = 8;     ///< device-side launch overhead (launch targets)
  double blockSize = 1;    ///< at least 64 threads and whole warps per block
};

/// `.nestor.yaml` `mapping:` (docs/mapping.md).
struct MappingConfig {
  GpuTarget gpu;
  /// The GPU-parameters file (nestor-gpu-probe's JSON) the figures of `gpu`
  /// were read from, "" when none (docs/mapping.md, "GPU parameters measured
  /// on your GPU").
  std::string gpuParamsFile;
  MappingWeights weights;
  double defaultTrip = 1000;          ///< a loop trip count or child size nothing else gives (the paper's default)
  double defaultThreads = 1 << 20;    ///< a grid size nothing else gives
  double skew = 0.5;                  ///< load-imbalance growth per doubling of the tasks a warp waits on
  double launchCost = 100000;         ///< one device launch, in child-thread units (~1 us on Hopper)
  unsigned registersPerThread = 32;   ///< estimate when ptxas figures are not given
  /// Registers per thread by kernel, from ptxas (nestor/ResourceUsage.h).
  std::map<std::string, unsigned> registersByKernel;
  /// Why a kernel missing from registersByKernel is estimated ("" when
  /// ptxas was not asked: nothing is said).
  std::string registersNote;
  /// Values of identifiers in bounds and launch configurations (`n: 65536`),
  /// and average trip counts of loops by "file:line" (`"spmv.cu:11": 12`).
  std::map<std::string, double> sizes;
  /// The longest trip of an irregular loop over the whole input, by
  /// "file:line" (`"spmv.cu:11": 5266`, a matrix's longest row or a graph's
  /// largest degree); without it the model extrapolates one from `skew`.
  std::map<std::string, double> longest;
  /// Hard constraints the user pins: `placement`, `slaves`, `span`, `split`.
  std::optional<std::string> pinPlacement;
  std::optional<unsigned> pinSlaves, pinSpan, pinSplit;
};

/// One level of a mapping.
struct MappingLevel {
  std::string what;     ///< "threads of 'tmv'", "loop at line 11 (i)", "child grid of 'child'"
  std::string dim;      ///< "x", "y", "lanes" (consecutive lanes of x), "serial" (inside one thread)
  unsigned blockSize = 1; ///< threads per block on this level
  std::string span;     ///< "1", "n", "all", "split"
  unsigned factor = 1;  ///< n of Span(n), k of Split(k)
};

/// One constraint as judged for one mapping.
struct MappingConstraint {
  std::string id;         ///< e.g. "coalescing:val[e]", "parallelism"
  bool hard = false;
  bool global = false;    ///< scope: the whole nest (global) or one pattern (local)
  double weight = 0;      ///< alpha x executions (soft)
  double satisfied = 0;   ///< 0..1 (soft); hard: 1 holds, 0 violated
  std::string why;
};

struct Mapping {
  std::string id;         ///< e.g. "lanes-8", "y-16/span-2", "launch-aggregate-grid"
  std::string placement;  ///< loops: sequential | y | lanes | warp-tasks; launches: child-grid | serial | threshold | ...
  unsigned slaves = 1;    ///< threads per outer iteration on the inner level
  unsigned span = 1;      ///< Span(n) of level 0 (outer iterations per master)
  unsigned split = 1;     ///< Split(k) of the inner level
  unsigned mastersPerBlock = 0;
  unsigned blockThreads = 0;
  bool reshaped = false;  ///< fewer masters per block than the original block had threads
  /// Launch targets: threshold T (0: none), coarsening factor, aggregation granularity.
  unsigned threshold = 0, coarsen = 1;
  std::string aggregate;
  std::vector<MappingLevel> levels;
  double dop = 0;         ///< threads the mapping runs in parallel
  double score = 0;       ///< sum of weight x satisfied over sum of weights, 0..1
  /// The cost model's estimated time of the nested pattern under this
  /// mapping, in microseconds (what the ranking orders by), and how it was
  /// reached: the bound that decides (bytes / bandwidth, latency, issue,
  /// launches) in words.
  double estimateUs = 0;
  std::string costWhy;
  /// A rewrite's own template rather than a placement of the paper's search:
  /// the load-balancing and launch templates (their lb_threshold), merge-path,
  /// the recursion templates.
  std::string family;
  unsigned lbThreshold = 0;
  std::vector<MappingConstraint> constraints;
  std::string summary;    ///< one line: the mapping in words
  /// Whether the texts above were written: `summary`, the levels' `what`,
  /// the constraints' `id` and `why`, `costWhy`. Ranking needs none of them
  /// (scores and estimates are always there); see MappingTexts.
  bool explained = true;
};

/// A mapping the hard constraints removed, and which one.
struct PrunedMapping {
  std::string id;
  std::string why;
};

/// The mappings of one nested pattern, best first.
struct TargetMappings {
  bool isLaunch = false;
  int id = -1;              ///< LoopSite::id or LaunchSite::id
  std::string kernel;
  unsigned line = 0;
  std::vector<Mapping> ranked;
  std::vector<PrunedMapping> pruned;
  std::vector<std::string> assumptions; ///< sizes the model had to assume
  double originalUs = 0; ///< the estimated time of the original code (the "sequential"/"child-grid" mapping)
};

/// Which ranked mappings get their texts (Mapping::explained). A loop has up
/// to ~120 candidate mappings and a launch 80; writing every candidate's
/// explanation was most of the model's time (docs/fuzzing.md), and a front
/// end shows a few: the hover three, `--list` and the advisor's JSON the
/// first N, the ones a rewrite makes and the original.
struct MappingTexts {
  /// nullopt: every mapping. N: the first N of the ranking and the original
  /// code's ("sequential", "child-grid"); explainMappings() adds others.
  std::optional<size_t> first;
  static MappingTexts all() { return {}; }
  static MappingTexts firstOf(size_t n) { return {n}; }
};

/// The mappings of every nested pattern of the file: loops that can run in
/// parallel inside kernels, and device-side launches.
std::vector<TargetMappings> rankMappings(const FileModel &m, const MappingConfig &cfg,
                                         MappingTexts texts = MappingTexts::all());
/// The mappings of one loop (isLaunch false) or launch; nullopt when the
/// target is not a nested pattern the model ranks.
std::optional<TargetMappings> rankMappingsOf(const FileModel &m, const MappingConfig &cfg, bool isLaunch, int id,
                                             MappingTexts texts = MappingTexts::all());
/// Writes the texts of the mappings of `t` named in `ids` that are not
/// explained yet (the same model and configuration that ranked `t`); the
/// ranking, scores and estimates do not change.
void explainMappings(const FileModel &m, const MappingConfig &cfg, TargetMappings &t,
                     const std::vector<std::string> &ids);

/// Evaluates an integer expression text (literals, identifiers from `sizes`,
/// + - * / % and parentheses, casts, dim3(a, b, c) as a product); nullopt when
/// it has anything else or an unknown name.
std::optional<double> evaluateSize(const std::string &text, const std::map<std::string, double> &sizes);

/// Short explanation of the best mapping: the two constraints that most
/// separate it from the runner-up (for hovers and --list).
std::string explainBest(const TargetMappings &t);

/// "≈ 12 us (estimate)": how every front end shows an estimated time.
std::string estimateText(double us);
/// "12 us", "1.40 ms".
std::string formatMicroseconds(double us);

} // namespace nestor
