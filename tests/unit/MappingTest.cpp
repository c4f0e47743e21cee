// The static mapping model (nestor/Mapping.h) on hand-made models: sizes,
// hard constraints (block limits and reshaping, barriers, pins), the soft
// constraints' verdicts on the classic shapes (TMV: coalesced across threads,
// few threads; CSR SpMV: contiguous along the loop, irregular), launches, and
// the `mapping:` section of .nestor.yaml.
#include "nestor/Config.h"
#include "nestor/Mapping.h"
#include "nestor/ResourceUsage.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace nestor;

namespace {

/// A kernel `k` launched from the host as k<<<grid, block>>> with one loop.
FileModel oneLoop(const std::string &grid, std::optional<uint64_t> block, LoopSite loop) {
  FileModel m;
  m.file = "k.cu";
  Kernel k;
  k.name = "k";
  k.launchedBy = {0};
  k.loops = {0};
  m.kernels.push_back(k);
  LaunchSite ls;
  ls.id = 0;
  ls.parent = "main";
  ls.child = "k";
  ls.grid = grid;
  ls.block = block ? std::to_string(*block) : "threads";
  ls.blockValue = block;
  m.launches.push_back(ls);
  loop.id = 0;
  loop.function = "k";
  loop.inKernel = loop.inDeviceCode = true;
  loop.kind = "for";
  loop.inductionVar = "i";
  loop.stepAmount = "1";
  loop.lowerBound = "0";
  loop.span.file = "k.cu";
  loop.span.begin.line = 5;
  m.loops.push_back(loop);
  return m;
}

ArrayAccess access(std::string array, bool thread, bool induction, bool threadContiguous, bool inductionContiguous,
                   bool indirect = false) {
  ArrayAccess a;
  a.array = std::move(array);
  a.index = "idx";
  a.dependsOnThread = thread;
  a.dependsOnInduction = induction;
  a.threadContiguous = threadContiguous;
  a.inductionContiguous = inductionContiguous;
  a.indirect = indirect;
  a.memorySpace = "global";
  return a;
}

/// TMV (cuda-np.md Fig. 2): sum += a[i * w + tx] * b[i], 1024 threads, h = 16384.
LoopSite tmvLoop() {
  LoopSite l;
  l.tripCount = TripCountClass::Uniform;
  l.upperBound = "h";
  l.accesses = {access("a", true, true, true, false), access("b", false, true, false, true)};
  l.reductions = {{ReductionOp::Add, "sum", {}}};
  return l;
}

/// CSR SpMV: sum += val[e] * x[col[e]], irregular rows.
LoopSite spmvLoop() {
  LoopSite l;
  l.tripCount = TripCountClass::Irregular;
  l.upperBound = "rowptr[row + 1]";
  l.lowerBound = "rowptr[row]";
  l.accesses = {access("val", true, true, false, true), access("col", true, true, false, true),
                access("x", true, true, false, false, /*indirect=*/true)};
  l.reductions = {{ReductionOp::Add, "sum", {}}};
  return l;
}

const Mapping *find(const TargetMappings &t, const std::string &id) {
  for (const Mapping &m : t.ranked)
    if (m.id == id) return &m;
  return nullptr;
}

size_t rankOf(const TargetMappings &t, const std::string &id) {
  for (size_t i = 0; i < t.ranked.size(); ++i)
    if (t.ranked[i].id == id) return i + 1;
  return 0;
}

void expectWellFormed(const TargetMappings &t) {
  ASSERT_FALSE(t.ranked.empty());
  for (size_t i = 0; i < t.ranked.size(); ++i) {
    const Mapping &m = t.ranked[i];
    EXPECT_GE(m.score, 0.0) << m.id;
    EXPECT_LE(m.score, 1.0) << m.id;
    // Ranked by the estimated time; within 1% the constraint score decides.
    EXPECT_GT(m.estimateUs, 0.0) << m.id;
    EXPECT_FALSE(m.costWhy.empty()) << m.id;
    if (i) {
      const Mapping &p = t.ranked[i - 1];
      if (std::fabs(p.estimateUs - m.estimateUs) > 0.01 * std::max(p.estimateUs, m.estimateUs))
        EXPECT_LT(p.estimateUs, m.estimateUs) << "not sorted at " << m.id;
      else
        EXPECT_GE(p.score + 1e-9, m.score) << "tie not broken by the score at " << m.id;
    }
    EXPECT_FALSE(m.summary.empty()) << m.id;
    EXPECT_EQ(m.levels.size(), 2u) << m.id;
    for (const MappingConstraint &c : m.constraints) {
      EXPECT_FALSE(c.why.empty()) << m.id << " " << c.id;
      EXPECT_GE(c.satisfied, 0.0);
      EXPECT_LE(c.satisfied, 1.0);
    }
  }
  for (const PrunedMapping &p : t.pruned) EXPECT_FALSE(p.why.empty()) << p.id;
}

} // namespace

TEST(MappingSizes, EvaluatesTheLaunchArithmetic) {
  std::map<std::string, double> sizes{{"n", 1000}, {"rows", 262144}, {"TMV_BLOCK", 64}};
  struct Row { const char *text; std::optional<double> value; };
  const Row rows[] = {
      {"(n + 63) / 64", 16},       {"(rows + 255) / 256", 1024}, {"n / TMV_BLOCK", 15}, {"dim3(4, 2)", 8},
      {"dim3(n / 100, 2, 3)", 60}, {"(long long)n * 2", 2000},   {"64u", 64},           {"0x40", 64},
      {"n % 7", 6},                {"-n + 1001", 1},             {"m", std::nullopt},  {"n / 0", std::nullopt},
      {"f(n)", std::nullopt},      {"", std::nullopt},           {"(n", std::nullopt}, {"n +", std::nullopt},
  };
  for (const Row &r : rows) EXPECT_EQ(evaluateSize(r.text, sizes), r.value) << r.text;
}

TEST(MappingLoops, TmvWithFewThreadsPutsTheLoopOnYWithManySlaves) {
  // 1024 threads cannot fill an H100 (270k); the column access coalesces
  // across threads, so the slaves belong on y, not on lanes.
  MappingConfig cfg;
  cfg.sizes = {{"w", 1024}, {"h", 16384}};
  auto t = rankMappingsOf(oneLoop("w / 128", 128, tmvLoop()), cfg, false, 0);
  ASSERT_TRUE(t);
  expectWellFormed(*t);
  EXPECT_TRUE(t->assumptions.empty()) << t->assumptions.front();
  const Mapping *seq = find(*t, "sequential"), *y32 = find(*t, "y-32"), *lanes32 = find(*t, "lanes-32");
  ASSERT_TRUE(seq && y32 && lanes32);
  EXPECT_GT(y32->score, seq->score);
  EXPECT_GT(y32->score, lanes32->score);
  // In time: 32 warps walking 16384 rows each are latency-bound: about
  // 16384 steps x 0.7 us / 4 loads in flight = 2.9 ms; 32 slaves cut the steps 32-fold.
  EXPECT_NEAR(seq->estimateUs, 16384 * 0.7 / 4, 0.1 * 16384 * 0.7 / 4) << seq->costWhy;
  EXPECT_NE(seq->costWhy.find("latency-bound"), std::string::npos) << seq->costWhy;
  EXPECT_LT(y32->estimateUs * 10, seq->estimateUs) << y32->costWhy;
  EXPECT_LT(y32->estimateUs, lanes32->estimateUs) << lanes32->costWhy;
  EXPECT_DOUBLE_EQ(t->originalUs, seq->estimateUs);
  // 128 x 32 > 1024: reshaped to 32 masters per block.
  EXPECT_TRUE(y32->reshaped);
  EXPECT_EQ(y32->mastersPerBlock, 32u);
  EXPECT_EQ(y32->blockThreads, 1024u);
  // Lanes break the coalescing of a[i * w + tx] (32 runs of one element).
  auto coal = [](const Mapping &m) {
    for (const MappingConstraint &c : m.constraints)
      if (c.id.rfind("coalescing:a", 0) == 0) return c.satisfied;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(coal(*y32), 1.0);
  EXPECT_DOUBLE_EQ(coal(*lanes32), 0.125);
  EXPECT_LT(rankOf(*t, "y-32"), rankOf(*t, "sequential"));
}

// A kernel launched only from another translation unit (issue 21's project
// index fills Kernel::externalLaunches): that launch sizes the grid, as a
// launch in the file would, instead of the assumed default.
TEST(MappingLoops, LaunchInAnotherTranslationUnitSizesTheGrid) {
  MappingConfig cfg;
  cfg.sizes = {{"w", 1024}, {"h", 16384}};
  FileModel local = oneLoop("w / 128", 128, tmvLoop());
  FileModel split = local;
  ExternalLaunch e;
  e.file = "/project/src/main.cu";
  e.site = split.launches[0];
  e.site.span.begin.line = 42;
  split.kernels[0].launchedBy.clear();
  split.kernels[0].externalLaunches = {e};
  split.launches.clear();
  auto a = rankMappingsOf(local, cfg, false, 0), b = rankMappingsOf(split, cfg, false, 0);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(b->assumptions.empty()) << b->assumptions.front();
  EXPECT_DOUBLE_EQ(a->originalUs, b->originalUs);
  // Without it, the default thread count is assumed and said.
  split.kernels[0].externalLaunches.clear();
  auto c = rankMappingsOf(split, cfg, false, 0);
  ASSERT_TRUE(c && !c->assumptions.empty());
  EXPECT_NE(c->assumptions.front().find("no host launch in this file"), std::string::npos) << c->assumptions.front();
  // An unknown grid names the other file's launch.
  split.kernels[0].externalLaunches = {e};
  split.kernels[0].externalLaunches[0].site.grid = "blocks";
  split.kernels[0].externalLaunches[0].site.gridValue.reset();
  auto d = rankMappingsOf(split, cfg, false, 0);
  ASSERT_TRUE(d && !d->assumptions.empty());
  EXPECT_NE(d->assumptions.front().find("launch at main.cu:42"), std::string::npos) << d->assumptions.front();
}

TEST(MappingLoops, CteLongestRowWaitsOneRoundTripPerRound) {
  // Skew 0.5 over 262144 rows of 10: the longest row is about
  // 10 x 262144^0.5 = 5120 entries, 160 CTE rounds on one warp, each waiting
  // for its loads once and for its shuffles (not for its loads again per
  // shuffle). Power-law rows measured CTE at 0.38-0.42x of the sequential
  // loop (held-out sets 1 and 2); 0.8-1.4 us a round on long-row inputs.
  MappingConfig cfg;
  cfg.sizes = {{"rows", 262144}, {"k.cu:5", 10}};
  auto t = rankMappingsOf(oneLoop("(rows + 255) / 256", 256, spmvLoop()), cfg, false, 0);
  ASSERT_TRUE(t);
  const Mapping *seq = find(*t, "sequential"), *tasks = find(*t, "warp-tasks");
  ASSERT_TRUE(seq && tasks);
  const double rounds = 10 * std::sqrt(262144.0) / 32;
  EXPECT_GE(tasks->estimateUs, rounds * cfg.gpu.latencyUs) << tasks->costWhy;
  EXPECT_LT(tasks->estimateUs, rounds * 2 * cfg.gpu.latencyUs) << tasks->costWhy;
  EXPECT_LT(tasks->estimateUs, 0.5 * seq->estimateUs) << tasks->costWhy << " vs " << seq->costWhy;
}

TEST(MappingLoops, AGivenLongestRowBoundsTheCriticalPath) {
  // Rows of 25 with one in 2000 of up to 5266 (bench/mapping's "longrows"):
  // their skew, 0.28, puts the longest of 524288 rows near 1000, so the
  // warp that holds it does not bound CTE's estimate; given, it does.
  MappingConfig cfg;
  cfg.skew = 0.28;
  cfg.sizes = {{"rows", 524288}, {"k.cu:5", 25}};
  auto guessed = rankMappingsOf(oneLoop("(rows + 255) / 256", 256, spmvLoop()), cfg, false, 0);
  cfg.longest = {{"k.cu:5", 5266}};
  auto given = rankMappingsOf(oneLoop("(rows + 255) / 256", 256, spmvLoop()), cfg, false, 0);
  ASSERT_TRUE(guessed && given);
  const Mapping *before = find(*guessed, "warp-tasks"), *after = find(*given, "warp-tasks");
  ASSERT_TRUE(before && after);
  EXPECT_LT(before->estimateUs, 5266.0 / 32 * cfg.gpu.latencyUs) << before->costWhy;
  EXPECT_GE(after->estimateUs, 5266.0 / 32 * cfg.gpu.latencyUs) << after->costWhy;
  EXPECT_NE(after->costWhy.find("longest row"), std::string::npos) << after->costWhy;
  // A key that names no irregular loop changes nothing.
  cfg.longest = {{"k.cu:6", 5266}};
  auto other = rankMappingsOf(oneLoop("(rows + 255) / 256", 256, spmvLoop()), cfg, false, 0);
  ASSERT_TRUE(other);
  EXPECT_EQ(find(*other, "warp-tasks")->estimateUs, before->estimateUs);
}

TEST(MappingLoops, TmvWithManyThreadsStaysOneDimensional) {
  MappingConfig cfg;
  cfg.sizes = {{"w", 1 << 22}, {"h", 64}};
  auto t = rankMappingsOf(oneLoop("w / 128", 128, tmvLoop()), cfg, false, 0);
  ASSERT_TRUE(t);
  expectWellFormed(*t);
  EXPECT_EQ(t->ranked.front().placement, "sequential") << explainBest(*t);
}

TEST(MappingLoops, SpmvPrefersLanesOverOneThreadPerRow) {
  MappingConfig cfg;
  cfg.sizes = {{"rows", 262144}, {"k.cu:5", 10}};
  auto t = rankMappingsOf(oneLoop("(rows + 255) / 256", 256, spmvLoop()), cfg, false, 0);
  ASSERT_TRUE(t);
  expectWellFormed(*t);
  const Mapping *seq = find(*t, "sequential"), *l8 = find(*t, "lanes-8"), *tasks = find(*t, "warp-tasks");
  ASSERT_TRUE(seq && l8 && tasks);
  EXPECT_GT(l8->score, seq->score);
  EXPECT_GT(tasks->score, seq->score);
  EXPECT_LT(l8->estimateUs, seq->estimateUs) << l8->costWhy << " vs " << seq->costWhy;
  EXPECT_LT(tasks->estimateUs, seq->estimateUs) << tasks->costWhy;
  // The load-balancing templates and merge-path are ranked with the rest.
  const Mapping *delayed = find(*t, "delayed-global-buffer-64"), *merge = find(*t, "merge-path");
  ASSERT_TRUE(delayed && merge);
  EXPECT_EQ(delayed->lbThreshold, 64u);
  EXPECT_LT(merge->estimateUs, seq->estimateUs) << merge->costWhy;
  // 256 x 8 > 1024: two blocks of 128 masters.
  EXPECT_TRUE(l8->reshaped);
  EXPECT_EQ(l8->mastersPerBlock, 128u);
  // Ten non-zeros per row over 32 lanes leave most lanes idle.
  const Mapping *l32 = find(*t, "lanes-32");
  ASSERT_TRUE(l32);
  auto use = [](const Mapping &m) {
    for (const MappingConstraint &c : m.constraints)
      if (c.id == "lane-use") return c.satisfied;
    return -1.0;
  };
  // Skewed (default skew 0.5): judged at the work-weighted 10 x 3.5 = 35.
  EXPECT_NEAR(use(*l32), 35.0 / 64, 1e-9);
  EXPECT_NEAR(use(*l8), 35.0 / 40, 1e-9);
  // Near-regular data (skew 0): at the mean, 10 iterations.
  cfg.skew = 0;
  auto regular = rankMappingsOf(oneLoop("(rows + 255) / 256", 256, spmvLoop()), cfg, false, 0);
  ASSERT_TRUE(regular);
  EXPECT_NEAR(use(*find(*regular, "lanes-32")), 10.0 / 32, 1e-9);
  EXPECT_NEAR(use(*find(*regular, "lanes-8")), 10.0 / 16, 1e-9);
  // CTE pays an owner search and a segmented combination every round.
  EXPECT_NEAR(use(*find(*regular, "warp-tasks")), 1.0 / (1.0 + 2.5), 1e-9);
  // No irregular-loop gathers in the score: x[col[e]] costs the same everywhere.
  for (const MappingConstraint &c : seq->constraints) EXPECT_NE(c.id, "coalescing:x[idx]");
}

TEST(MappingLoops, HardConstraintsPrune) {
  MappingConfig cfg;
  // A barrier in a loop the user marked parallel: only the serial loop keeps
  // every thread at it.
  LoopSite withBarrier = tmvLoop();
  withBarrier.barriers.push_back({});
  FileModel marked = oneLoop("4", 128, withBarrier);
  NpPragma pragma;
  pragma.isParallelFor = true;
  marked.pragmas.push_back(pragma);
  marked.loops[0].pragma = 0;
  auto t = rankMappingsOf(marked, cfg, false, 0);
  ASSERT_TRUE(t);
  for (const Mapping &m : t->ranked) EXPECT_EQ(m.placement, "sequential") << m.id;
  ASSERT_FALSE(t->pruned.empty());
  EXPECT_NE(t->pruned.front().why.find("barrier"), std::string::npos);

  // __launch_bounds__(64): 16 slaves leave 4 masters of a 128-thread block.
  FileModel m = oneLoop("4", 128, tmvLoop());
  m.kernels[0].launchBoundsMaxThreadsValue = 64;
  t = rankMappingsOf(m, cfg, false, 0);
  ASSERT_TRUE(t);
  const Mapping *y16 = find(*t, "y-16");
  ASSERT_TRUE(y16);
  EXPECT_EQ(y16->mastersPerBlock, 4u);
  EXPECT_EQ(y16->blockThreads, 64u);
  // __launch_bounds__(16): 32 slaves cannot fit at all.
  m.kernels[0].launchBoundsMaxThreadsValue = 16;
  t = rankMappingsOf(m, cfg, false, 0);
  ASSERT_TRUE(t);
  EXPECT_EQ(find(*t, "y-32"), nullptr);
  auto pruned = std::find_if(t->pruned.begin(), t->pruned.end(), [](const PrunedMapping &p) { return p.id == "y-32"; });
  ASSERT_NE(pruned, t->pruned.end());
  EXPECT_NE(pruned->why.find("__launch_bounds__(16)"), std::string::npos) << pruned->why;
}

TEST(MappingLoops, PinsAreHardConstraints) {
  MappingConfig cfg;
  cfg.pinPlacement = "lanes";
  cfg.pinSlaves = 16;
  auto t = rankMappingsOf(oneLoop("1024", 256, spmvLoop()), cfg, false, 0);
  ASSERT_TRUE(t);
  for (const Mapping &m : t->ranked) {
    EXPECT_EQ(m.placement, "lanes") << m.id;
    EXPECT_EQ(m.slaves, 16u) << m.id;
  }
  EXPECT_NE(t->pruned.front().why.find("mapping.pin"), std::string::npos);
}

TEST(MappingLoops, SplitOnlyForReductionsAndSpanOnlyWithoutBarriers) {
  MappingConfig cfg;
  LoopSite map = tmvLoop();
  map.reductions.clear();
  auto t = rankMappingsOf(oneLoop("4", 128, map), cfg, false, 0);
  ASSERT_TRUE(t);
  for (const Mapping &m : t->ranked) EXPECT_EQ(m.split, 1u) << m.id;
  FileModel withSync = oneLoop("4", 128, tmvLoop());
  withSync.kernels[0].barriers.push_back({"__syncthreads", {}});
  t = rankMappingsOf(withSync, cfg, false, 0);
  ASSERT_TRUE(t);
  for (const Mapping &m : t->ranked) EXPECT_EQ(m.span, 1u) << m.id;
  EXPECT_TRUE(find(*t, "y-4/split-2")) << "a reduction can be split";
}

TEST(MappingLoops, UnknownSizesAreAssumedAndSaid) {
  auto t = rankMappingsOf(oneLoop("(n + 63) / 64", 64, tmvLoop()), MappingConfig{}, false, 0);
  ASSERT_TRUE(t);
  ASSERT_EQ(t->assumptions.size(), 2u);
  EXPECT_NE(t->assumptions[0].find("assumed"), std::string::npos);
  EXPECT_NE(t->assumptions[1].find("k.cu:5"), std::string::npos) << "names the sizes key to set";
}

TEST(MappingLoops, NotNestedParallelismIsNotRanked) {
  LoopSite carried = tmvLoop();
  carried.carriedDependences.push_back({"a", "reads a[i - 1]", {}});
  EXPECT_FALSE(rankMappingsOf(oneLoop("4", 128, carried), MappingConfig{}, false, 0));
  EXPECT_FALSE(rankMappingsOf(oneLoop("4", 128, tmvLoop()), MappingConfig{}, false, 7)) << "no such loop";
}

TEST(MappingLaunches, AggregationRemovesTheLaunchOverhead) {
  FileModel m;
  m.file = "g.cu";
  Kernel parent;
  parent.name = "parent";
  parent.launchedBy = {0};
  m.kernels.push_back(parent);
  LaunchSite host;
  host.id = 0;
  host.parent = "main";
  host.child = "parent";
  host.grid = "(n + 255) / 256";
  host.block = "256";
  host.blockValue = 256;
  LaunchSite dev;
  dev.id = 1;
  dev.deviceSide = true;
  dev.parent = "parent";
  dev.child = "child";
  dev.threads = "deg";
  dev.everyThreadMayLaunch = true;
  dev.serializable = true;
  m.launches = {host, dev};
  MappingConfig cfg;
  cfg.sizes = {{"n", 65536}, {"deg", 30}};
  auto t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  expectWellFormed(*t);
  EXPECT_FALSE(rankMappingsOf(m, cfg, true, 0)) << "host launches are not nested parallelism";
  EXPECT_LT(rankOf(*t, "aggregate-grid"), rankOf(*t, "child-grid"));
  EXPECT_LT(rankOf(*t, "threshold-128"), rankOf(*t, "child-grid")) << "30-thread children run serially";
  // First: a mapping without device launches (aggregated per grid, or a
  // launch template that promotes the children to no dynamic parallelism).
  EXPECT_TRUE(t->ranked.front().aggregate == "grid" || t->ranked.front().id.rfind("promoted-", 0) == 0)
      << explainBest(*t);
  EXPECT_NE(t->ranked.front().costWhy.find("0 device launches"), std::string::npos) << t->ranked.front().costWhy;
  // 65536 device launches at ~0.5 us each dominate the original.
  EXPECT_GT(t->originalUs, 65536 * 0.5);
  EXPECT_TRUE(find(*t, "promoted-global-buffer-64")) << "the launch templates are ranked";
  // A child that cannot be serialised: no thresholds.
  m.launches[1].serializable = false;
  m.launches[1].reasons = {"the child uses __syncthreads"};
  t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  for (const Mapping &mp : t->ranked) EXPECT_EQ(mp.threshold, 0u) << mp.id;
}

/// The in-sample CDP neighbour sum (bench/mapping cases.tsv `neighbour-sum`,
/// examples/graph/neighbour_sum.cu): every vertex of a power-law graph
/// launches a child of `degree` threads in blocks of NS_CHILD_BLOCK.
FileModel neighbourSum() {
  FileModel m;
  m.file = "neighbour_sum.cu";
  Kernel parent;
  parent.name = "ns_parent";
  parent.launchedBy = {0};
  m.kernels.push_back(parent);
  LaunchSite host;
  host.id = 0;
  host.parent = "main";
  host.child = "ns_parent";
  host.grid = "(n + 255) / 256";
  host.block = "256";
  host.blockValue = 256;
  LaunchSite dev;
  dev.id = 1;
  dev.deviceSide = true;
  dev.parent = "ns_parent";
  dev.child = "ns_child";
  dev.grid = "(degree + NS_CHILD_BLOCK - 1) / NS_CHILD_BLOCK";
  dev.block = "NS_CHILD_BLOCK";
  dev.threads = "degree";
  dev.everyThreadMayLaunch = true;
  dev.serializable = true;
  m.launches = {host, dev};
  return m;
}

/// The neighbour sum whose child kernel branches on a gathered value (BFS,
/// SSSP, label propagation: `if (depth[adj[k]] == INF)`).
FileModel neighbourSumWhoseChildBranchesOnGather() {
  FileModel m = neighbourSum();
  Kernel child;
  child.name = "ns_child";
  child.launchedBy = {1};
  child.branchesOnGather = true;
  m.kernels.push_back(child);
  return m;
}

TEST(MappingLaunches, InSampleNeighbourSumInMeasuredOrder) {
  // bench/mapping/results-h100/neighbour-sum.json (one H100, 16,384 vertices,
  // 16 per vertex, power-law): these variants measured, in ms, 0.0435
  // (threshold-32 + aggregate-grid) < 0.050 (aggregate-grid) < 0.116
  // (threshold-512 + aggregate-grid) < 0.29 (threshold-128 + aggregate-warp)
  // < 0.49 (threshold-2048) < 1.53 (threshold-32) < 7.65 (child-grid, as
  // written). The cost model must give the same order, and the figures the
  // cost model was calibrated on within 2.5x (the launch estimates were 5-14x
  // off before: the longest serial child, the aggregated children's search
  // for their parent, the power-law share over a threshold, one launch per
  // warp that has a child to launch).
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h100");
  cfg.sizes = {{"n", 16384}, {"degree", 16}, {"NS_CHILD_BLOCK", 128}};
  cfg.skew = 0.5;
  auto t = rankMappingsOf(neighbourSum(), cfg, true, 1);
  ASSERT_TRUE(t);
  expectWellFormed(*t);
  const char *measuredOrder[] = {"threshold-32+aggregate-grid", "aggregate-grid", "threshold-512+aggregate-grid",
                                 "threshold-128+aggregate-warp", "threshold-2048", "threshold-32", "child-grid"};
  const double measuredUs[] = {43.5, 50.1, 115.7, 289.7, 491.5, 1527.3, 7654.1};
  // How far under its measured time each estimate may be. threshold-32 +
  // aggregate-grid is 2.8x under since a serial walk's bytes are the
  // elements it reads (not a sector per element for every step of the
  // warp's longest child): its steps, each an atomicAdd on the parent's
  // slot, overlap less than the model's quarter latency per step, which is
  // not charged (charging every atomic child's step two loads in turn put
  // threshold-2048 at 2.9 ms for 0.49 ms measured).
  const double under[] = {3.0, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5};
  double previous = 0;
  for (size_t i = 0; i < std::size(measuredOrder); ++i) {
    const Mapping *mp = find(*t, measuredOrder[i]);
    ASSERT_TRUE(mp) << measuredOrder[i];
    EXPECT_GT(mp->estimateUs, previous) << mp->id << ": " << mp->costWhy;
    previous = mp->estimateUs;
    EXPECT_GT(mp->estimateUs, measuredUs[i] / under[i]) << mp->id << ": " << mp->costWhy;
    EXPECT_LT(mp->estimateUs, measuredUs[i] * 2.5) << mp->id << ": " << mp->costWhy;
  }
  EXPECT_NE(find(*t, "aggregate-grid")->costWhy.find("parent search"), std::string::npos)
      << find(*t, "aggregate-grid")->costWhy;
  EXPECT_NE(find(*t, "threshold-2048")->costWhy.find("the longest serial child"), std::string::npos)
      << find(*t, "threshold-2048")->costWhy;
  // The two-queue template runs its small children one thread each (its
  // thread-mapped queue): serial work, as the other templates' (here L =
  // 256: children of one 128-thread block are small).
  const Mapping *twoQueues = find(*t, "promoted-two-queues-256");
  ASSERT_TRUE(twoQueues);
  EXPECT_EQ(twoQueues->costWhy.find(" 0% of it serial"), std::string::npos) << twoQueues->costWhy;
  // The launch templates, measured in-sample on the H200
  // (bench/mapping/results-h200-insample/neighbour-sum.json): with 128-thread
  // child blocks every launch has 128 threads, so L = 32 queues them all;
  // the block buffer's 256-thread parent blocks then run 256 launches each,
  // one after another (187.5 us), the global buffer's drain pass spreads
  // them over the GPU (37.8 us).
  cfg.gpu = *gpuTargetNamed("h200");
  t = rankMappingsOf(neighbourSum(), cfg, true, 1);
  ASSERT_TRUE(t);
  const Mapping *blockBuffer = find(*t, "promoted-block-buffer-32"), *globalBuffer = find(*t, "promoted-global-buffer-32");
  ASSERT_TRUE(blockBuffer && globalBuffer);
  EXPECT_LT(globalBuffer->estimateUs, blockBuffer->estimateUs);
  EXPECT_GT(blockBuffer->estimateUs, 187.5 / 2.5) << blockBuffer->costWhy;
  EXPECT_LT(blockBuffer->estimateUs, 187.5 * 2.5) << blockBuffer->costWhy;
  EXPECT_NE(blockBuffer->costWhy.find("a block's queued launches, one after another"), std::string::npos)
      << blockBuffer->costWhy;
  EXPECT_NE(globalBuffer->costWhy.find(" 0% of it serial"), std::string::npos)
      << "no 128-thread launch stays in its thread under L = 32: " << globalBuffer->costWhy;
  cfg.gpu = *gpuTargetNamed("h100");
  // Regular children (skew 0) of 16 threads: a threshold of 32 runs every one
  // serially, none is launched.
  cfg.skew = 0;
  t = rankMappingsOf(neighbourSum(), cfg, true, 1);
  ASSERT_TRUE(t);
  EXPECT_NE(find(*t, "threshold-32")->costWhy.find("0 device launches"), std::string::npos)
      << find(*t, "threshold-32")->costWhy;
}

TEST(MappingLoops, SmallThreadLocalLoopsKeepTheOriginal) {
  // Eight iterations over a thread-local array and a coefficient every thread
  // reads alike: spreading them saves nothing measurable, so no mapping is
  // estimated to beat the original by 25% ("keep the original").
  LoopSite l;
  l.tripCount = TripCountClass::Constant;
  l.constantTripCount = 8;
  l.accesses = {access("coef", false, true, false, true)};
  l.accesses[0].dependsOnThread = false;
  l.reductions = {{ReductionOp::Add, "total", {}}};
  MappingConfig cfg;
  cfg.sizes = {{"n", 1 << 20}};
  auto t = rankMappingsOf(oneLoop("(n + 255) / 256", 256, l), cfg, false, 0);
  ASSERT_TRUE(t);
  expectWellFormed(*t);
  ASSERT_GT(t->originalUs, 0.0);
  for (const Mapping &m : t->ranked) EXPECT_GT(m.estimateUs * 1.1, t->originalUs) << m.id << ": " << m.costWhy;
}

TEST(MappingConfig, ParsesTheMappingSection) {
  auto c = parseConfig("mapping:\n  gpu: a100\n  sizes: { n: 65536, \"spmv.cu:11\": 12.5 }\n"
                       "  weights: { coalescing: 20, block_size: 0 }\n  pin: { placement: lanes, slaves: 8 }\n"
                       "  skew: 0.25\n  default_trip: 64\n  registers_per_thread: 64\n",
                       "m.yaml");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->mapping.gpu.name, "a100");
  EXPECT_EQ(c->mapping.gpu.sms, 108u);
  EXPECT_EQ(c->mapping.sizes.at("n"), 65536);
  EXPECT_EQ(c->mapping.sizes.at("spmv.cu:11"), 12.5);
  EXPECT_EQ(c->mapping.weights.coalescing, 20);
  EXPECT_EQ(c->mapping.weights.blockSize, 0);
  EXPECT_EQ(c->mapping.pinPlacement, std::optional<std::string>("lanes"));
  EXPECT_EQ(c->mapping.pinSlaves, std::optional<unsigned>(8));
  EXPECT_EQ(c->mapping.skew, 0.25);
  EXPECT_EQ(c->mapping.defaultTrip, 64);
  EXPECT_EQ(c->mapping.registersPerThread, 64u);
  EXPECT_TRUE(c->mapping.longest.empty());
  EXPECT_EQ(c->mapping.gpu.bandwidthGBs, 1500) << "a100's copy bandwidth";
  auto l = parseConfig("mapping:\n  longest: { \"spmv.cu:11\": 5266 }\n", "m.yaml");
  ASSERT_TRUE(bool(l)) << llvm::toString(l.takeError());
  EXPECT_EQ(l->mapping.longest.at("spmv.cu:11"), 5266);
  // The cost model's GPU figures, each overridable.
  auto h = parseConfig("mapping:\n  gpu: h200\n  bandwidth_gbs: 3900\n  device_launch_us: 1.5\n  kernel_us: 3\n"
                       "  latency_us: 0.6\n  clock_ghz: 1.98\n",
                       "m.yaml");
  ASSERT_TRUE(bool(h)) << llvm::toString(h.takeError());
  EXPECT_EQ(h->mapping.gpu.name, "h200");
  EXPECT_EQ(h->mapping.gpu.bandwidthGBs, 3900);
  EXPECT_EQ(h->mapping.gpu.deviceLaunchUs, 1.5);
  EXPECT_EQ(h->mapping.gpu.kernelUs, 3);
  EXPECT_EQ(h->mapping.gpu.latencyUs, 0.6);
  EXPECT_EQ(h->mapping.gpu.clockGhz, 1.98);
  EXPECT_EQ(gpuTargetNamed("h200")->bandwidthGBs, 4000);
  auto bad = parseConfig("mapping:\n  bandwidth_gbs: -1\n", "m.yaml");
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("bandwidth_gbs"), std::string::npos);
}

/// A scratch project directory with `.nestor.yaml` and other files.
std::string scratchProject(const std::vector<std::pair<std::string, std::string>> &files) {
  llvm::SmallString<128> dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("nestor-gpu-params", dir));
  for (auto &[name, text] : files) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    EXPECT_FALSE(ec) << path.str().str();
    out << text;
  }
  return std::string(dir);
}

const char *kHandWrittenParams = R"({
  "schema": "nestor-gpu-params", "version": 1, "name": "NVIDIA H200",
  "sms": 132, "threads_per_sm": 2048, "clock_ghz": 1.98,
  "bandwidth_gbs": 3882, "kernel_us": 4.5, "device_launch_us": 0.54, "latency_us": 0.65,
  "probe": { "measured": "2026-11-25T04:06:12Z" }
})";

TEST(MappingConfig, GpuParametersFileMeasuredOnTheGpu) {
  // Named by gpu_params (relative to .nestor.yaml): the file's figures over
  // the preset, under the keys .nestor.yaml gives itself.
  std::string dir = scratchProject({{"params.json", kHandWrittenParams},
                                    {".nestor.yaml", "mapping:\n  gpu: a100\n  gpu_params: params.json\n  kernel_us: 3\n"}});
  auto c = loadConfig(dir + "/.nestor.yaml");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->mapping.gpu.sms, 132u) << "the file's SM count, not the a100 preset's 108";
  EXPECT_EQ(c->mapping.gpu.bandwidthGBs, 3882);
  EXPECT_EQ(c->mapping.gpu.deviceLaunchUs, 0.54);
  EXPECT_EQ(c->mapping.gpu.latencyUs, 0.65);
  EXPECT_EQ(c->mapping.gpu.clockGhz, 1.98);
  EXPECT_EQ(c->mapping.gpu.kernelUs, 3) << ".nestor.yaml's own key wins";
  EXPECT_EQ(c->mapping.gpu.name, "NVIDIA H200");
  EXPECT_EQ(c->mapping.gpuParamsFile, dir + "/params.json");
  // The default path, .nestor/gpu-params.json beside .nestor.yaml, when no
  // file is named.
  dir = scratchProject({{".nestor/gpu-params.json", kHandWrittenParams}, {".nestor.yaml", "mapping:\n  gpu: h100\n"}});
  c = loadConfig(dir + "/.nestor.yaml");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->mapping.gpu.bandwidthGBs, 3882);
  EXPECT_EQ(c->mapping.gpuParamsFile, dir + "/.nestor/gpu-params.json");
  // Without one: the preset, and no file named.
  dir = scratchProject({{".nestor.yaml", "mapping:\n  gpu: h100\n"}});
  c = loadConfig(dir + "/.nestor.yaml");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->mapping.gpu.bandwidthGBs, 2900);
  EXPECT_EQ(c->mapping.gpuParamsFile, "");
  // The file nestor-gpu-probe wrote on the H200 the held-out set was
  // measured on (bench/mapping), as committed.
  GpuTarget h200 = *gpuTargetNamed("h100");
  llvm::Error read = applyGpuParams(std::string(NESTOR_SOURCE_DIR) + "/bench/mapping/gpu-params-h200.json", h200);
  ASSERT_FALSE(bool(read)) << llvm::toString(std::move(read));
  EXPECT_EQ(h200.name, "NVIDIA H200");
  EXPECT_EQ(h200.sms, 132u);
  EXPECT_GT(h200.bandwidthGBs, 3000);
  EXPECT_LT(h200.deviceLaunchUs, 2.0);
  // Bad files are errors that name the file and the key.
  struct Row { const char *file, *expect; };
  const Row rows[] = {
      {"{\"schema\": \"other\"}", "expected \"schema\": \"nestor-gpu-params\""},
      {"{\"schema\": \"nestor-gpu-params\", \"bandwidth_gbs\": -5}", "bandwidth_gbs must be a positive number"},
      {"{\"schema\": \"nestor-gpu-params\", \"sms\": 1.5}", "sms must be a whole number"},
      {"{\"schema\": \"nestor-gpu-params\", \"device_launch_us\": \"fast\"}", "device_launch_us must be a positive number"},
      {"[1, 2]", "expected a JSON object"},
      {"{\"schema\": ", "not JSON"},
  };
  for (const Row &r : rows) {
    dir = scratchProject({{"p.json", r.file}, {".nestor.yaml", "mapping:\n  gpu_params: p.json\n"}});
    c = loadConfig(dir + "/.nestor.yaml");
    ASSERT_FALSE(bool(c)) << r.file;
    std::string msg = llvm::toString(c.takeError());
    EXPECT_NE(msg.find(r.expect), std::string::npos) << msg;
    EXPECT_NE(msg.find("p.json"), std::string::npos) << msg;
  }
  dir = scratchProject({{".nestor.yaml", "mapping:\n  gpu_params: missing.json\n"}});
  c = loadConfig(dir + "/.nestor.yaml");
  ASSERT_FALSE(bool(c));
  std::string msg = llvm::toString(c.takeError());
  EXPECT_NE(msg.find("missing.json: GPU parameters: cannot read"), std::string::npos) << msg;
}

TEST(MappingConfig, ErrorsNameTheProblem) {
  struct Row { const char *text, *expect; };
  const Row rows[] = {
      {"mapping:\n  gpu: k80\n", "unknown gpu 'k80'"},
      {"mapping:\n  sizes: { n: many }\n", "sizes: 'n' must be a non-negative number"},
      {"mapping:\n  weights: { speed: 1 }\n", "unknown weight 'speed'"},
      {"mapping:\n  weights: { combine: -1 }\n", "weight 'combine' must be a non-negative number"},
      {"mapping:\n  pin: { placement: diagonal }\n", "pin: unknown placement 'diagonal'"},
      {"mapping:\n  pin: { slaves: 3.5 }\n", "pin: 'slaves' must be a whole number"},
      {"mapping:\n  pin: { colour: red }\n", "pin: unknown key 'colour'"},
      {"mapping:\n  skew: -1\n", "skew must be >= 0"},
      {"mapping:\n  longest: { \"k.cu:5\": 0.5 }\n", "longest: 'k.cu:5' must be a number of at least 1"},
      {"mapping:\n  longest: { \"k.cu:5\": long }\n", "longest: 'k.cu:5' must be a number of at least 1"},
      {"mapping:\n  default_trip: 0\n", "default_trip must be a positive number"},
      {"mapping:\n  registers_per_thread: 300\n", "registers_per_thread must be 1..255"},
      {"mapping:\n  speed: 3\n", "unknown key 'speed'"},
  };
  for (const Row &r : rows) {
    auto c = parseConfig(r.text, "m.yaml");
    ASSERT_FALSE(bool(c)) << r.text;
    std::string msg = llvm::toString(c.takeError());
    EXPECT_NE(msg.find(r.expect), std::string::npos) << msg;
  }
}

TEST(MappingResources, PtxasReportByKernelName) {
  const char *report = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z2tkILi3EEvPf' for 'sm_90'
ptxas info    : Function properties for _Z2tkILi3EEvPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
ptxas info    : Compiling entry function '_ZN2ns3tmvEPKfS1_Pfii' for 'sm_90'
ptxas info    : Function properties for _ZN2ns3tmvEPKfS1_Pfii
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem
garbage line : Used many registers
)";
  auto r = parsePtxasReport(report);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r.at("tk").registers, 10u);
  EXPECT_EQ(r.at("tmv").registers, 40u);
  EXPECT_EQ(r.at("tmv").sharedBytes, 1024u);
  EXPECT_EQ(r.at("tmv").stackBytes, 16u);
  EXPECT_TRUE(parsePtxasReport("").empty());
}

TEST(MappingResources, PtxasRegistersTightenTheBlockLimit) {
  // 128 registers per thread: at most 512 threads per block (64K per SM).
  MappingConfig cfg;
  cfg.registersByKernel["k"] = 128;
  auto t = rankMappingsOf(oneLoop("4", 128, tmvLoop()), cfg, false, 0);
  ASSERT_TRUE(t);
  const Mapping *y8 = find(*t, "y-8");
  ASSERT_TRUE(y8);
  EXPECT_EQ(y8->blockThreads, 512u);
  EXPECT_TRUE(y8->reshaped);
  bool said = false;
  for (const MappingConstraint &c : y8->constraints)
    said |= c.id == "block-limit" && c.why.find("128 per thread (ptxas)") != std::string::npos;
  EXPECT_TRUE(said);
  // Not measured, with a reason: estimated, and the assumption says why.
  cfg.registersByKernel.clear();
  cfg.registersNote = "no nvcc found for ptxas's figures";
  t = rankMappingsOf(oneLoop("4", 128, tmvLoop()), cfg, false, 0);
  ASSERT_TRUE(t);
  EXPECT_NE(std::find_if(t->assumptions.begin(), t->assumptions.end(),
                         [](const std::string &a) { return a.find("estimated 32 (no nvcc found") != std::string::npos; }),
            t->assumptions.end());
}

TEST(MappingResources, NvccReadsTheRegistersOfARealKernel) {
  auto nvcc = findNvcc();
  if (!nvcc) GTEST_SKIP() << "no nvcc";
  llvm::SmallString<128> path;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("nestor-ptxas-test", "cu", fd, path));
  {
    llvm::raw_fd_ostream os(fd, true);
    os << "__global__ void scale(float *a, float s, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
          " if (i < n) a[i] *= s; }\n";
  }
  auto r = ptxasResources(*nvcc, std::string(path), {}, false);
  llvm::sys::fs::remove(path);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_TRUE(r->count("scale"));
  EXPECT_GT(r->at("scale").registers, 0u);
  // A file that does not compile: an error with nvcc's message, not a crash.
  auto bad = ptxasResources(*nvcc, "/nonexistent/file.cu", {}, false);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("nvcc --resource-usage failed"), std::string::npos);
}

namespace {
/// Every field of two mappings, texts included.
void expectSameMapping(const Mapping &a, const Mapping &b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.placement, b.placement) << a.id;
  EXPECT_EQ(a.score, b.score) << a.id;
  EXPECT_EQ(a.estimateUs, b.estimateUs) << a.id;
  EXPECT_EQ(a.dop, b.dop) << a.id;
  EXPECT_EQ(a.summary, b.summary) << a.id;
  EXPECT_EQ(a.costWhy, b.costWhy) << a.id;
  EXPECT_EQ(a.explained, b.explained) << a.id;
  ASSERT_EQ(a.levels.size(), b.levels.size()) << a.id;
  for (size_t i = 0; i < a.levels.size(); ++i) {
    EXPECT_EQ(a.levels[i].what, b.levels[i].what) << a.id;
    EXPECT_EQ(a.levels[i].dim, b.levels[i].dim) << a.id;
  }
  ASSERT_EQ(a.constraints.size(), b.constraints.size()) << a.id;
  for (size_t i = 0; i < a.constraints.size(); ++i) {
    EXPECT_EQ(a.constraints[i].id, b.constraints[i].id) << a.id;
    EXPECT_EQ(a.constraints[i].why, b.constraints[i].why) << a.id;
    EXPECT_EQ(a.constraints[i].weight, b.constraints[i].weight) << a.id;
    EXPECT_EQ(a.constraints[i].satisfied, b.constraints[i].satisfied) << a.id;
  }
}

/// Ranked with texts for the first three only, then explained in full: the
/// same ranking, scores and estimates as ranking with every text, and the
/// same texts once explained.
void expectLazyTextsChangeNothing(const FileModel &m, const MappingConfig &cfg, bool isLaunch, int id) {
  auto eager = rankMappingsOf(m, cfg, isLaunch, id);
  auto lazy = rankMappingsOf(m, cfg, isLaunch, id, MappingTexts::firstOf(3));
  ASSERT_TRUE(eager);
  ASSERT_TRUE(lazy);
  ASSERT_EQ(eager->ranked.size(), lazy->ranked.size());
  ASSERT_GT(eager->ranked.size(), 3u);
  EXPECT_EQ(eager->originalUs, lazy->originalUs);
  ASSERT_EQ(eager->pruned.size(), lazy->pruned.size());
  for (size_t i = 0; i < eager->pruned.size(); ++i) EXPECT_EQ(eager->pruned[i].why, lazy->pruned[i].why);
  size_t unexplained = 0;
  for (size_t i = 0; i < eager->ranked.size(); ++i) {
    const Mapping &e = eager->ranked[i], &l = lazy->ranked[i];
    ASSERT_EQ(e.id, l.id) << "rank " << i + 1;
    EXPECT_EQ(e.score, l.score) << e.id;
    EXPECT_EQ(e.estimateUs, l.estimateUs) << e.id;
    const bool shown = i < 3 || e.id == "sequential" || e.id == "child-grid";
    if (shown) {
      expectSameMapping(e, l);
      continue;
    }
    ++unexplained;
    EXPECT_FALSE(l.explained) << l.id;
    EXPECT_TRUE(l.summary.empty() && l.costWhy.empty()) << l.id;
    for (const MappingConstraint &c : l.constraints) EXPECT_TRUE(c.id.empty() && c.why.empty()) << l.id;
  }
  EXPECT_GT(unexplained, 0u);
  EXPECT_EQ(explainBest(*eager), explainBest(*lazy));
  std::vector<std::string> ids;
  for (const Mapping &mp : lazy->ranked) ids.push_back(mp.id);
  explainMappings(m, cfg, *lazy, ids);
  for (size_t i = 0; i < eager->ranked.size(); ++i) expectSameMapping(eager->ranked[i], lazy->ranked[i]);
}
} // namespace

TEST(MappingTexts, OnlyTheShownMappingsAreExplainedAndNothingElseChanges) {
  MappingConfig cfg;
  cfg.sizes = {{"h", 16384}, {"n", 65536}, {"deg", 30}, {"degree", 16}};
  {
    SCOPED_TRACE("TMV, a uniform reducing loop");
    expectLazyTextsChangeNothing(oneLoop("4", 256, tmvLoop()), cfg, false, 0);
  }
  {
    SCOPED_TRACE("CSR SpMV: the loop templates and merge-path too");
    expectLazyTextsChangeNothing(oneLoop("1024", 128, spmvLoop()), cfg, false, 0);
  }
  {
    SCOPED_TRACE("a device launch: thresholds, aggregation, the launch templates");
    expectLazyTextsChangeNothing(neighbourSum(), cfg, true, 1);
  }
  {
    SCOPED_TRACE("a kernel that launches itself: the recursion templates");
    FileModel m = neighbourSum();
    m.launches[1].child = "ns_parent";
    expectLazyTextsChangeNothing(m, cfg, true, 1);
  }
}

// The cost model's terms fitted on the first held-out set of bench/mapping
// (docs/mapping.md, "Second held-out set"); each test states the measured
// order the term reproduces.

TEST(MappingCost, ShortRowsWithManySlavesPayTheirWarpsRoundTrips) {
  // Row norms of 16 elements, one thread per row, 1M rows, 128-thread blocks
  // (H200: 2 intra-warp slaves 26 us, 32 slaves 162 us: a warp of one step
  // still waits a load's latency and its start and store another).
  LoopSite l;
  l.tripCount = TripCountClass::Uniform;
  l.upperBound = "dim";
  l.accesses = {access("data", true, true, false, true)};
  l.reductions = {{ReductionOp::Add, "ss", {}}};
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 1 << 20}, {"dim", 16}};
  auto t = rankMappingsOf(oneLoop("(n + 127) / 128", 128, l), cfg, false, 0);
  ASSERT_TRUE(t);
  expectWellFormed(*t);
  const Mapping *two = find(*t, "lanes-2"), *all = find(*t, "lanes-32");
  ASSERT_TRUE(two && all);
  EXPECT_LT(two->estimateUs * 3, all->estimateUs) << two->costWhy << " | " << all->costWhy;
}

TEST(MappingCost, WholeLinesPerRowBeatShortRunsOfTheSameBytes) {
  // Row-major MV, 32k rows of 1024, 128-thread blocks (H200: 32 lanes per
  // row 33 us, 8 lanes 37.6 us for the same bytes: 4 rows of 32 bytes per
  // load reach DRAM as more, smaller requests).
  LoopSite l;
  l.tripCount = TripCountClass::Uniform;
  l.upperBound = "cols";
  ArrayAccess x = access("x", false, true, false, true);
  l.accesses = {access("A", true, true, false, true), x};
  l.reductions = {{ReductionOp::Add, "s", {}}};
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"rows", 32768}, {"cols", 1024}};
  auto t = rankMappingsOf(oneLoop("(rows + 127) / 128", 128, l), cfg, false, 0);
  ASSERT_TRUE(t);
  const Mapping *eight = find(*t, "lanes-8"), *all = find(*t, "lanes-32");
  ASSERT_TRUE(eight && all);
  EXPECT_LT(all->estimateUs, eight->estimateUs) << all->costWhy << " | " << eight->costWhy;
}

TEST(MappingCost, NestedLaunchesOfARecursionCostMoreThanItsLevels) {
  // A kernel that launches itself (first held-out set's trees, H200: the
  // level worklist 70 us < a block per child 1.29 ms < as written 124 ms).
  FileModel m = neighbourSum();
  m.launches[1].child = "ns_parent";
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 16}, {"degree", 16}, {"NS_CHILD_BLOCK", 32}};
  auto t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  const Mapping *levels = find(*t, "recursion-levels"), *hier = find(*t, "recursion-block-per-child");
  ASSERT_TRUE(levels && hier);
  EXPECT_LT(levels->estimateUs, hier->estimateUs) << levels->costWhy << " | " << hier->costWhy;
  EXPECT_LT(hier->estimateUs, t->originalUs);
  EXPECT_EQ(t->ranked.front().id, "recursion-levels");
}

TEST(MappingCost, AGridThatKeepsItsLaunchWaitsForTheFirstChild) {
  // Regular children under every threshold: the threshold still keeps the
  // launch statement (a child size read from data may exceed it somewhere)
  // and pays the first launch's latency once, as the original does;
  // aggregating per grid launches from the host and does not (training:
  // the regular BFS, SSSP, label propagation and two-hop counts, H200:
  // threshold-only 24-33 us slower than threshold + aggregate-grid).
  FileModel m = neighbourSum();
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.gpu.deviceLaunchLatencyUs = 15;
  cfg.sizes = {{"n", 16384}, {"degree", 8}, {"NS_CHILD_BLOCK", 128}};
  cfg.skew = 0;
  auto t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  const Mapping *serial = find(*t, "threshold-128"), *grid = find(*t, "threshold-128+aggregate-grid");
  ASSERT_TRUE(serial && grid);
  EXPECT_NE(serial->costWhy.find("the first launch's latency 15 us"), std::string::npos) << serial->costWhy;
  EXPECT_EQ(grid->costWhy.find("first launch's latency"), std::string::npos) << grid->costWhy;
  cfg.gpu.deviceLaunchLatencyUs = 40;
  auto slower = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(slower);
  EXPECT_NEAR(find(*slower, "threshold-128")->estimateUs - serial->estimateUs, 25, 1e-6);
  EXPECT_NEAR(find(*slower, "threshold-128+aggregate-grid")->estimateUs, grid->estimateUs, 1e-6);
}

/// The neighbour sum whose child thread walks a list (a loop at line 30 of
/// ns_child, its trip count the size "neighbour_sum.cu:30").
FileModel neighbourSumWithAChildLoop() {
  FileModel m = neighbourSum();
  Kernel child;
  child.name = "ns_child";
  child.loops = {0};
  m.kernels.push_back(child);
  LoopSite walk;
  walk.id = 0;
  walk.function = "ns_child";
  walk.inKernel = true;
  walk.tripCount = TripCountClass::Irregular;
  walk.span.begin.line = 30;
  walk.upperBound = "walk + walk_len";
  m.loops = {walk};
  return m;
}

TEST(MappingCost, ChildLoopsMakeSerialChildrenCostly) {
  // A child thread that walks a list (the second held-out set's triangle
  // count, regular, 32 per vertex, H200: aggregate-grid 147 us, threshold-32
  // + aggregate-grid 624 us, every child serial in its parent thread). With
  // a straight-line child the model had the serial form 1.2x faster.
  FileModel m = neighbourSumWithAChildLoop();
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 16384}, {"degree", 32}, {"NS_CHILD_BLOCK", 32}, {"neighbour_sum.cu:30", 32}};
  cfg.skew = 0;
  auto t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  const Mapping *grid = find(*t, "aggregate-grid"), *serial = find(*t, "threshold-32+aggregate-grid");
  ASSERT_TRUE(grid && serial);
  EXPECT_LT(grid->estimateUs, serial->estimateUs) << grid->costWhy << " | " << serial->costWhy;
  EXPECT_GT(serial->estimateUs, 2 * grid->estimateUs) << grid->costWhy << " | " << serial->costWhy;
  // Without the size, the trip count is assumed and said.
  cfg.sizes.erase("neighbour_sum.cu:30");
  t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  EXPECT_TRUE(llvm::any_of(t->assumptions, [](const std::string &a) { return a.find("line 30") != std::string::npos; }));
}

TEST(MappingCost, TheLongestQueuedChildRunsInOneBlock) {
  // Power-law children drained by 64-thread blocks (dbuf-global-launch):
  // the hub is a chain of its size / 64 steps, where an aggregated grid
  // spreads it (training, H200: BFS, SSSP, label propagation,
  // dbuf-global-launch-32 1.2-2.0x slower than aggregate-grid, where the
  // model had estimated it 2-3x faster). Those children branch on a
  // gathered value, so every block-wide step waits for two loads in turn
  // (a child that only accumulates: ADrainedChildThatOnlyAccumulatesOverlapsItsSteps).
  FileModel m = neighbourSumWhoseChildBranchesOnGather();
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 32768}, {"degree", 16}, {"NS_CHILD_BLOCK", 64}};
  cfg.skew = 0.5;
  auto t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  const Mapping *drained = find(*t, "promoted-global-buffer-32"), *grid = find(*t, "aggregate-grid");
  ASSERT_TRUE(drained && grid);
  EXPECT_NE(drained->costWhy.find("the longest child run by one block"), std::string::npos) << drained->costWhy;
  // 16 x 32768^0.5 = 2896 threads: 46 steps of two loads.
  EXPECT_GE(drained->estimateUs, 46 * 2 * cfg.gpu.latencyUs) << drained->costWhy;
  EXPECT_LT(grid->estimateUs, drained->estimateUs) << grid->costWhy << " | " << drained->costWhy;
}

TEST(MappingCost, AChildSizedByDataMayHaveAnOutlierEvenWhenStatedRegular) {
  // Children sized by data on a graph stated regular (skew 0): one vertex
  // may still be a hub, and a drained template runs it in one block
  // (training, H200: BFS, SSSP, label propagation, two-hop counts, k-core
  // and CDP SpMV on regular graphs with a 3,079-edge hub: dbuf-shared-launch
  // and dbuf-global-launch 1.2-3.0x slower than threshold + aggregate-grid,
  // where the model, seeing no child longer than the mean, ranked them first).
  FileModel m = neighbourSum();
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 16384}, {"degree", 8}, {"NS_CHILD_BLOCK", 32}};
  cfg.skew = 0;
  auto t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  const Mapping *shared = find(*t, "promoted-block-buffer-64"), *grid = find(*t, "threshold-32+aggregate-grid");
  ASSERT_TRUE(shared && grid);
  // The longest child: at least 8 x 16384^0.5 = 1024 threads, run by the
  // parent's 256-thread block in 4 dependent steps of two loads.
  EXPECT_GE(shared->estimateUs, 4 * 2 * cfg.gpu.latencyUs) << shared->costWhy;
  EXPECT_LT(grid->estimateUs, shared->estimateUs) << grid->costWhy << " | " << shared->costWhy;
}

TEST(MappingCost, AConstantChildGridHasNoOutlier) {
  // The same 8-thread children launched as a constant <<<1, 8>>>: no child
  // can be longer than another, so the drained template's block-wide chain
  // is its one child, not a hub's.
  FileModel data = neighbourSum(), constant = neighbourSum();
  constant.launches[1].grid = "1";
  constant.launches[1].gridValue = 1;
  constant.launches[1].block = "8";
  constant.launches[1].blockValue = 8;
  constant.launches[1].threads = "8";
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 16384}, {"degree", 8}, {"NS_CHILD_BLOCK", 8}};
  cfg.skew = 0;
  auto fromData = rankMappingsOf(data, cfg, true, 1), fixed = rankMappingsOf(constant, cfg, true, 1);
  ASSERT_TRUE(fromData && fixed);
  const Mapping *a = find(*fromData, "promoted-block-buffer-64"), *b = find(*fixed, "promoted-block-buffer-64");
  ASSERT_TRUE(a && b);
  EXPECT_LT(b->estimateUs, a->estimateUs) << b->costWhy << " | " << a->costWhy;
}

TEST(MappingCost, AnOutlierOverTheThresholdIsLaunchedNotWalkedSerially) {
  // Regular children (6 threads) sized by data, so with a possible hub: a
  // threshold leaves serial only the children of the stated tail, and the
  // hub over it is launched (training, H200: the regular graphs of
  // bench/mapping, each with a 3k-edge hub: threshold 32 to 2048 +
  // aggregate-grid measured within 2% of each other, where the model had
  // 2048 6x behind 32, walking C x P^0.5 serially).
  FileModel m = neighbourSum();
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 4096}, {"degree", 6}, {"NS_CHILD_BLOCK", 32}};
  cfg.skew = 0.2;
  auto t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  const Mapping *t32 = find(*t, "threshold-32+aggregate-grid"), *t2048 = find(*t, "threshold-2048+aggregate-grid");
  ASSERT_TRUE(t32 && t2048);
  EXPECT_LT(t2048->estimateUs, 1.1 * t32->estimateUs) << t32->costWhy << " | " << t2048->costWhy;
  // On a power-law tail the longest child under 2048 is long, and walked.
  cfg.skew = 0.6;
  t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  t32 = find(*t, "threshold-32+aggregate-grid");
  t2048 = find(*t, "threshold-2048+aggregate-grid");
  ASSERT_TRUE(t32 && t2048);
  EXPECT_GT(t2048->estimateUs, 2 * t32->estimateUs) << t32->costWhy << " | " << t2048->costWhy;
}

TEST(MappingCost, AGuardOnTheChildSizeLaunchesOnlyTheChildrenInside) {
  // Only children of at most 16 threads are launched (set 19, edge gaps:
  // `deg > 0 && deg <= max_deg` on a regular graph): none is a hub, so the
  // longest child the block buffer runs in a parent thread is 16, not a
  // hub's 256 (measured, H200: dbuf-shared-launch-256 16 us, estimated 47 us).
  FileModel m = neighbourSum();
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 32768}, {"degree", 14.9}, {"NS_CHILD_BLOCK", 128}};
  cfg.skew = 0.09;
  auto unbounded = rankMappingsOf(m, cfg, true, 1);
  m.launches[1].childAtLeast = 1;
  m.launches[1].childAtMost = 16;
  auto bounded = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(unbounded && bounded);
  const Mapping *before = find(*unbounded, "promoted-block-buffer-256"),
                *after = find(*bounded, "promoted-block-buffer-256");
  ASSERT_TRUE(before && after);
  EXPECT_LT(after->estimateUs, 0.5 * before->estimateUs) << before->costWhy << " | " << after->costWhy;
  EXPECT_TRUE(std::any_of(bounded->assumptions.begin(), bounded->assumptions.end(), [](const std::string &a) {
    return a.find("runs only for children of 1 to 16 threads") != std::string::npos;
  }));
  // At least 48 on a power-law graph of mean 30: about one parent in five
  // launches, so the original makes a fifth of the device launches.
  m.launches[1].childAtLeast = 48;
  m.launches[1].childAtMost.reset();
  cfg.sizes = {{"n", 32768}, {"degree", 29.7}, {"NS_CHILD_BLOCK", 32}};
  cfg.skew = 0.62;
  auto hubs = rankMappingsOf(m, cfg, true, 1);
  m.launches[1].childAtLeast.reset();
  auto all = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(hubs && all);
  const Mapping *fewer = find(*hubs, "child-grid"), *every = find(*all, "child-grid");
  ASSERT_TRUE(fewer && every);
  EXPECT_LT(fewer->estimateUs, 0.35 * every->estimateUs) << fewer->costWhy << " | " << every->costWhy;
  EXPECT_GT(fewer->estimateUs, 0.1 * every->estimateUs) << fewer->costWhy << " | " << every->costWhy;
}

TEST(MappingCost, CoarsenedChildrenHideLessLatency) {
  // Coarsening a child that loops by c leaves 1/c of its threads, each
  // walking c children's loops in turn (training, H200: overlap and
  // triangle counts, SpGEMM row sums, coarsen-8 + aggregate-grid 2-5x
  // slower than aggregate-grid; the model had them equal). 1024 parents'
  // 32-thread children fit in one wave of the GPU's resident threads.
  FileModel m = neighbourSumWithAChildLoop();
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 1024}, {"degree", 32}, {"NS_CHILD_BLOCK", 32}, {"neighbour_sum.cu:30", 32}};
  cfg.skew = 0;
  auto t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  const Mapping *plain = find(*t, "aggregate-grid"), *c2 = find(*t, "coarsen-2+aggregate-grid"),
                *c8 = find(*t, "coarsen-8+aggregate-grid");
  ASSERT_TRUE(plain && c2 && c8);
  EXPECT_LT(plain->estimateUs, c2->estimateUs) << plain->costWhy << " | " << c2->costWhy;
  EXPECT_LT(c2->estimateUs, c8->estimateUs) << c2->costWhy << " | " << c8->costWhy;
}

TEST(MappingCost, ASerialChildThatBranchesOnAGatherWaitsForBothLoads) {
  // The same power-law children, accumulating (neighbour sum) or branching
  // on a gathered value (a BFS visit): run serially under a threshold, the
  // second waits two loads per step (training, H200: threshold-32 +
  // aggregate-grid 1.04-1.42x slower than aggregate-grid for BFS, SSSP,
  // label propagation, frontier and k-core children). 4096 parents: the
  // walk's latency, not its bytes, bounds the serial form.
  FileModel accumulate = neighbourSum(), branch = neighbourSumWhoseChildBranchesOnGather();
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 4096}, {"degree", 16}, {"NS_CHILD_BLOCK", 64}};
  cfg.skew = 0.6;
  auto a = rankMappingsOf(accumulate, cfg, true, 1), b = rankMappingsOf(branch, cfg, true, 1);
  ASSERT_TRUE(a && b);
  const Mapping *aSerial = find(*a, "threshold-32+aggregate-grid"), *bSerial = find(*b, "threshold-32+aggregate-grid"),
                *bGrid = find(*b, "aggregate-grid");
  ASSERT_TRUE(aSerial && bSerial && bGrid);
  EXPECT_GT(bSerial->estimateUs, aSerial->estimateUs) << aSerial->costWhy << " | " << bSerial->costWhy;
  EXPECT_LT(bGrid->estimateUs, bSerial->estimateUs) << bGrid->costWhy << " | " << bSerial->costWhy;
}

TEST(MappingCost, ShortRowsHeldWholeInL1CostTheirBytesOnce) {
  // Absolute maxima of 16-element rows, 2M rows, 128-thread blocks (third
  // held-out set's qmax-16, H200: 2 intra-warp slaves 50.8 us, 4 slaves
  // 68.4 us). Every resident warp's rows fit in L1, so a run of 8 bytes
  // fetches its sector once, as a run of 16 bytes does; fewer slaves then
  // wait for fewer warps' round trips.
  LoopSite l;
  l.tripCount = TripCountClass::Uniform;
  l.upperBound = "width";
  l.accesses = {access("data", true, true, false, true)};
  l.reductions = {{ReductionOp::Max, "m", {}}};
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"rows", 2097152}, {"width", 16}};
  auto t = rankMappingsOf(oneLoop("(rows + 127) / 128", 128, l), cfg, false, 0);
  ASSERT_TRUE(t);
  const Mapping *two = find(*t, "lanes-2"), *four = find(*t, "lanes-4");
  ASSERT_TRUE(two && four);
  EXPECT_LT(two->estimateUs, four->estimateUs) << two->costWhy << " | " << four->costWhy;
}

TEST(MappingCost, ARowOfBytesMovesAQuarterOfAFloatRow) {
  // A count over each thread's own 64-element row (the ninth held-out set's
  // motif count: 1M reads of 64 bases, 128-thread blocks). Costed as 4-byte
  // elements, the rows of 1-byte bases moved 4x their bytes.
  auto rowsOf = [](unsigned bytes) {
    LoopSite l;
    l.tripCount = TripCountClass::Uniform;
    l.upperBound = "len";
    l.accesses = {access("reads", true, true, false, true)};
    l.accesses[0].elementBytes = bytes;
    l.reductions = {{ReductionOp::Add, "found", {}}};
    return oneLoop("(nreads + 127) / 128", 128, l);
  };
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h100");
  cfg.sizes = {{"nreads", 1048576}, {"len", 64}};
  auto bytes = rankMappingsOf(rowsOf(1), cfg, false, 0), floats = rankMappingsOf(rowsOf(4), cfg, false, 0),
       unknown = rankMappingsOf(rowsOf(0), cfg, false, 0);
  ASSERT_TRUE(bytes && floats && unknown);
  for (const char *id : {"sequential", "lanes-8", "lanes-32"}) {
    const Mapping *b = find(*bytes, id), *f = find(*floats, id), *u = find(*unknown, id);
    ASSERT_TRUE(b && f && u) << id;
    EXPECT_LE(b->estimateUs, f->estimateUs) << id << ": " << b->costWhy << " | " << f->costWhy;
    EXPECT_DOUBLE_EQ(u->estimateUs, f->estimateUs) << id << ": an unknown size is costed as 4 bytes";
  }
  // The original walks 32 rows a warp: its lines per step are what bound
  // it, and a row of bytes spans a quarter of them. (32 slaves on a row
  // wait for their round trips either way.)
  const Mapping *b = find(*bytes, "sequential"), *f = find(*floats, "sequential");
  EXPECT_LT(b->estimateUs * 1.5, f->estimateUs) << b->costWhy << " | " << f->costWhy;
}

/// A count over power-law CSR rows, `c += (col[e] > v)` (the fifth held-out
/// set's forward-edge count: 262k rows of mean 25.6, skew 0.93, 64-thread
/// blocks).
LoopSite forwardCountLoop() {
  LoopSite l;
  l.tripCount = TripCountClass::Irregular;
  l.upperBound = "rowptr[v + 1]";
  l.lowerBound = "rowptr[v]";
  l.accesses = {access("col", true, true, false, true)};
  l.reductions = {{ReductionOp::Add, "c", {}}};
  return l;
}

MappingConfig forwardCountConfig() {
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 262144}, {"k.cu:5", 25.6}};
  cfg.skew = 0.93;
  return cfg;
}

TEST(MappingCost, InterWarpSlavesTakeEverySthIterationOfTheirRow) {
  // H200, fwd-powerlaw: 32 intra-warp slaves 84.7 us, 32 inter-warp slaves
  // 298 us. An inter-warp lane takes every 32nd iteration of its row, so it
  // re-reads no sector of its own: the warps that walk the longest row wait
  // a round trip per step, as the intra-warp ones do (the model had the
  // inter-warp walk 8x shorter, and ranked it first).
  auto t = rankMappingsOf(oneLoop("(n + 63) / 64", 64, forwardCountLoop()), forwardCountConfig(), false, 0);
  ASSERT_TRUE(t);
  expectWellFormed(*t);
  const Mapping *intra = find(*t, "lanes-32"), *inter = find(*t, "y-32");
  ASSERT_TRUE(intra && inter);
  EXPECT_LT(intra->estimateUs, inter->estimateUs) << intra->costWhy << " | " << inter->costWhy;
  // Two inter-warp slaves: a lane still walks its sector 4 steps in 8.
  const Mapping *inter2 = find(*t, "y-2");
  ASSERT_TRUE(inter2);
  EXPECT_LT(inter->estimateUs, inter2->estimateUs) << inter->costWhy << " | " << inter2->costWhy;
}

TEST(MappingCost, NoRowIsLongerThanThereAreRows) {
  // The tail carried to every row (25.6 x 262144^0.93: 2.8 million) is longer
  // than the 262,144 columns a row can have; the measured longest row of
  // fwd-powerlaw has 56,723 entries, and the original ran 0.96 ms on the
  // H200, where the uncapped tail estimated 123 ms.
  auto t = rankMappingsOf(oneLoop("(n + 63) / 64", 64, forwardCountLoop()), forwardCountConfig(), false, 0);
  ASSERT_TRUE(t);
  EXPECT_GT(t->originalUs, 1000.0);
  EXPECT_LT(t->originalUs, 20000.0) << find(*t, "sequential")->costWhy;
}

/// The fifth held-out set's push step, as the neighbour sum's launch: 32k
/// power-law vertices (mean out-degree 11.2, skew 0.62), 64-thread child
/// blocks, on an H200.
MappingConfig pushStepConfig() {
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 32768}, {"degree", 11.2}, {"NS_CHILD_BLOCK", 64}};
  cfg.skew = 0.62;
  return cfg;
}

TEST(MappingCost, ASerialWalkMovesTheBytesItReads) {
  // Power-law children that only accumulate (the fifth held-out set's push
  // step: 32k vertices, mean out-degree 11.2, skew 0.62, 64-thread child
  // blocks; H200: threshold-32 + aggregate-grid 46.3 us, aggregate-grid
  // 52.3 us). A parent thread walking its small children reads their
  // elements one after another, a sector serving 8 of them; charged a
  // sector per element for every step of its warp's longest child, the
  // walk was estimated bandwidth-bound at 45 us and ranked behind.
  const MappingConfig cfg = pushStepConfig();
  auto t = rankMappingsOf(neighbourSum(), cfg, true, 1);
  ASSERT_TRUE(t);
  const Mapping *grid = find(*t, "aggregate-grid"), *serial = find(*t, "threshold-32+aggregate-grid");
  ASSERT_TRUE(grid && serial);
  EXPECT_LT(serial->estimateUs, grid->estimateUs) << serial->costWhy << " | " << grid->costWhy;
  // A child that branches on a gathered value still waits both loads at
  // every serial step, and the aggregated grid stays ahead.
  FileModel m = neighbourSumWhoseChildBranchesOnGather();
  t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  grid = find(*t, "aggregate-grid");
  serial = find(*t, "threshold-32+aggregate-grid");
  ASSERT_TRUE(grid && serial);
  EXPECT_LT(grid->estimateUs, serial->estimateUs) << grid->costWhy << " | " << serial->costWhy;
}

TEST(MappingCost, ADrainedChildThatOnlyAccumulatesOverlapsItsSteps) {
  // The same power-law push step, its children over 32 threads queued and
  // drained block-wide after the parent (dbuf-global-launch-32; H200: 41.2
  // us, the best of 96 variants, aggregate-grid 52.3 us). A 64-thread block
  // walking the longest child keeps its next steps' loads in flight as a
  // serial walk does; charged two dependent loads a step, it was estimated
  // at 162 us and ranked 41st.
  const MappingConfig cfg = pushStepConfig();
  auto t = rankMappingsOf(neighbourSum(), cfg, true, 1);
  ASSERT_TRUE(t);
  const Mapping *grid = find(*t, "aggregate-grid"), *drained = find(*t, "promoted-global-buffer-32");
  ASSERT_TRUE(grid && drained);
  EXPECT_LT(drained->estimateUs, grid->estimateUs) << drained->costWhy << " | " << grid->costWhy;
  // A child that branches on a gathered value waits for both loads at every
  // block-wide step (training: BFS, SSSP, label propagation, k-core; the
  // drained templates 1.2-2.2x slower than aggregate-grid).
  FileModel m = neighbourSumWhoseChildBranchesOnGather();
  t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  grid = find(*t, "aggregate-grid");
  drained = find(*t, "promoted-global-buffer-32");
  ASSERT_TRUE(grid && drained);
  EXPECT_LT(grid->estimateUs, drained->estimateUs) << grid->costWhy << " | " << drained->costWhy;
}

TEST(MappingCost, AnInterleavedWalkUsesTheSectorsItFetches) {
  // A Fourier series per item (seventh held-out set): each thread reads its
  // row of coefficients as c[2 * k] and c[2 * k + 1], 96 terms, 262144
  // items in 64-thread blocks. Together the two strided accesses read the
  // row in order; costed a sector per lane and step, every mapping moved
  // 1.6 GB for 201 MB of coefficients and tied at 555 us, where the original
  // measured 226 us and 16 intra-warp slaves 94 us (H100).
  auto strided = [](const char *index) {
    ArrayAccess a = access("c", true, true, false, false);
    a.index = index;
    a.inductionStride = 2;
    return a;
  };
  LoopSite l;
  l.tripCount = TripCountClass::Uniform;
  l.upperBound = "terms";
  l.accesses = {strided("2 * k"), strided("2 * k + 1")};
  l.reductions = {{ReductionOp::Add, "s", {}}};
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h100");
  cfg.sizes = {{"items", 262144}, {"terms", 96}};
  auto t = rankMappingsOf(oneLoop("(items + 63) / 64", 64, l), cfg, false, 0);
  ASSERT_TRUE(t);
  const Mapping *seq = find(*t, "sequential"), *lanes16 = find(*t, "lanes-16");
  ASSERT_TRUE(seq && lanes16);
  EXPECT_GT(seq->estimateUs, 226 / 1.5) << seq->costWhy;
  EXPECT_LT(seq->estimateUs, 226 * 1.5) << seq->costWhy;
  // Estimated to beat the original by the 25% the advice asks (kKeepOriginalMargin).
  EXPECT_LT(lanes16->estimateUs * 1.25, seq->estimateUs) << lanes16->costWhy;
  // One of the two alone uses half of every sector it fetches: more bytes
  // per element read than the pair.
  LoopSite alone = l;
  alone.accesses = {strided("2 * k")};
  auto a = rankMappingsOf(oneLoop("(items + 63) / 64", 64, alone), cfg, false, 0);
  ASSERT_TRUE(a);
  const Mapping *seqAlone = find(*a, "sequential");
  ASSERT_TRUE(seqAlone);
  EXPECT_GT(seqAlone->estimateUs * 2, seq->estimateUs) << seqAlone->costWhy << " | " << seq->costWhy;
}

/// Realized variance of time-major price paths (eighth held-out set): each
/// thread reads p[t * assets + i] and p[(t - 1) * assets + i] (the second
/// `sameDataAs` the first when `stencil`), 1024 steps, 65536 assets in
/// 64-thread blocks, ranked for an H100.
std::optional<TargetMappings> realizedVarianceMappings(bool stencil) {
  LoopSite l;
  l.tripCount = TripCountClass::Uniform;
  l.upperBound = "steps";
  l.accesses = {access("price", true, true, true, false), access("price", true, true, true, false)};
  l.accesses[0].index = "(size_t)t * assets + i";
  l.accesses[1].index = "(size_t)(t - 1) * assets + i";
  l.accesses[1].sameDataAs = stencil ? 0 : -1;
  l.reductions = {{ReductionOp::Add, "s", {}}};
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h100");
  cfg.sizes = {{"assets", 65536}, {"steps", 1024}};
  return rankMappingsOf(oneLoop("(assets + 63) / 64", 64, l), cfg, false, 0);
}

TEST(MappingCost, AStencilAlongTheLoopMovesItsBytesOnce) {
  // Counted twice, the realized variance's reads made every mapping
  // bandwidth-bound at the original's estimate (537 MB for 268 MB) and kept
  // the original; measured on an H100, the original took 408 us and 4
  // inter-warp slaves 136 us.
  auto t = realizedVarianceMappings(true);
  ASSERT_TRUE(t);
  const Mapping *seq = find(*t, "sequential"), *y4 = find(*t, "y-4");
  ASSERT_TRUE(seq && y4);
  // Estimated to beat the original by the 25% the advice asks (kKeepOriginalMargin).
  EXPECT_LT(y4->estimateUs * 1.25, seq->estimateUs) << y4->costWhy << " | " << seq->costWhy;
  // Two reads of different data: twice the bytes for the slaves, who are
  // then bandwidth-bound near the original again.
  auto a = realizedVarianceMappings(false);
  ASSERT_TRUE(a);
  const Mapping *y4Apart = find(*a, "y-4");
  ASSERT_TRUE(y4Apart);
  EXPECT_GT(y4Apart->estimateUs, y4->estimateUs * 1.5) << y4Apart->costWhy << " | " << y4->costWhy;
}

TEST(MappingCost, LatencyNearTheBandwidthBoundAddsUp) {
  // The realized variance again: 2 inter-warp slaves have a latency bound
  // equal to their bandwidth bound, 4 half of it. max() tied them; measured
  // on an H100, 2 slaves took 232 us and 4 took 136 us (the loads of 2
  // wait in the memory system's queues).
  auto t = realizedVarianceMappings(true);
  ASSERT_TRUE(t);
  const Mapping *y2 = find(*t, "y-2"), *y4 = find(*t, "y-4");
  ASSERT_TRUE(y2 && y4);
  EXPECT_LT(y4->estimateUs * 1.1, y2->estimateUs) << y4->costWhy << " | " << y2->costWhy;
}

TEST(MappingCost, AGatherWaitsForItsIndexFirst) {
  // The third held-out set's Jacobi sweep (H200): 262144 rows of a power-law
  // matrix, 8 entries on average, `sigma += val[e] * x[col[e]]`. `x[j]`
  // cannot be sent before `col[e]` arrives, so every step is two round
  // trips in turn, and the slaves that give the longest rows the most lanes
  // gain the most. Counted as one round trip, 16 intra-warp slaves were
  // estimated 53 us and 32 58 us; 32 measured 1.68x faster.
  LoopSite l;
  l.tripCount = TripCountClass::Irregular;
  l.upperBound = "rowptr[i + 1]";
  l.accesses = {access("col", true, true, false, true), access("val", true, true, false, true),
                access("x", true, true, false, false, true)};
  l.reductions = {{ReductionOp::Add, "sigma", {}}};
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"n", 262144}, {"k.cu:5", 8}};
  cfg.skew = 0.5;
  auto t = rankMappingsOf(oneLoop("(n + 127) / 128", 128, l), cfg, false, 0);
  ASSERT_TRUE(t);
  const Mapping *l16 = find(*t, "lanes-16"), *l32 = find(*t, "lanes-32");
  ASSERT_TRUE(l16 && l32);
  EXPECT_LT(l32->estimateUs, l16->estimateUs) << l32->costWhy << " | " << l16->costWhy;
}

TEST(MappingSizes, AKernelParameterSizesTheArgumentPassedForIt) {
  // cc_round<<<(size + 127) / 128, 128>>>(..., size, ...) with the size
  // given for the kernel's parameter `list_size` (second held-out set's
  // label propagation, where the grid had been assumed 1M threads).
  FileModel m = neighbourSum();
  m.kernels[0].params = {{"row", "const unsigned *"}, {"list_size", "unsigned"}};
  m.launches[0].grid = "(size + 127) / 128";
  m.launches[0].block = "128";
  m.launches[0].blockValue = 128;
  m.launches[0].args = {"row", "size"};
  MappingConfig cfg;
  cfg.gpu = *gpuTargetNamed("h200");
  cfg.sizes = {{"list_size", 16384}, {"degree", 8}, {"NS_CHILD_BLOCK", 128}};
  auto t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  for (const std::string &a : t->assumptions) EXPECT_EQ(a.find("is not known"), std::string::npos) << a;
  // 16384 launches of the original, not 1M.
  EXPECT_NE(find(*t, "child-grid")->costWhy.find("16k device launches"), std::string::npos)
      << find(*t, "child-grid")->costWhy;
  // An expression passed for the parameter binds nothing.
  m.launches[0].args = {"row", "size / 2"};
  t = rankMappingsOf(m, cfg, true, 1);
  ASSERT_TRUE(t);
  EXPECT_TRUE(llvm::any_of(t->assumptions, [](const std::string &a) { return a.find("is not known") != std::string::npos; }));
}
