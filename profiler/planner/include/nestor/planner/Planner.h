// The planner of `nestor profile` (issue 6, analysis side): which rewritten
// variants of a kernel to time, their sources, and the plan nestor-runner
// executes (docs/profiler.md, docs/profile-planner.md).
//
//   auto list = listCandidates(tu, config, "tmv");            // static order
//   auto out  = writePlan(tu, opts, *list, request);          // sources + plan.json
//   ... nestor-runner out->planPath -o results.json ...       // RunnerProcess.h
//
// The user's files are only read: sources, the runtime headers they include
// and the plan are written under the plan directory.
#pragma once
#include "nestor/Analysis.h"
#include "nestor/Config.h"
#include "nestor/Rewrite.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <climits>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nestor::planner {

/// One rewrite of a chain, with its parameters (resolved: defaults filled in).
struct CandidateStep {
  std::string rewrite;
  RewriteParams params;
};

/// One variant to time: a chain of rewrites (usually one) at one loop or launch.
struct Candidate {
  std::string id;                   ///< plan variant id, e.g. "threshold-128+aggregate-grid.L41"
  std::vector<CandidateStep> steps; ///< in composition order
  RewriteTarget target;             ///< in the analysis the list was made from
  std::string kernel;               ///< the kernel it was listed for
  unsigned line = 0;                ///< first line of the target
  std::string where;                ///< "launch of ns_child in ns_parent, line 41"
  std::string title;                ///< the steps' titles joined by " + "
  std::string family;               ///< rewrite ids joined by "+"
  unsigned distance = 0;            ///< sum over steps of the rank of its parameters (0: preferred values)
  unsigned familyRank = 0;          ///< position of the family in the static order
  /// The mapping this variant realises (nestor/Mapping.h), its rank among the
  /// target's mappings and its score; empty / UINT_MAX / -1 when unranked.
  std::string mapping;
  unsigned mappingRank = UINT_MAX;
  double mappingScore = -1;
  /// The cost model's estimated time of the target under this variant, its
  /// original's, in microseconds (docs/mapping.md); -1 / 0 when not estimated.
  double estimateUs = -1;
  double originalUs = 0;
  size_t order = 0;                 ///< position in the static order, 0 = most promising
  /// `nestor rewrite` command line that produces this variant.
  std::string rewriteCommand(const std::string &file) const;
};

struct CandidateList {
  std::vector<Candidate> candidates; ///< in static order (see docs/profile-planner.md)
  std::vector<std::string> kernels;  ///< the kernels whose loops and launches were considered
  std::vector<std::string> notes;    ///< rewrites left out and why (e.g. annotation-only)
  bool usesDeviceLaunches = false;   ///< the file launches kernels from the device (CDP)
  /// The cost model's estimate of the original (the sum over the targets'
  /// originals), and whether no candidate is estimated to beat it by 25%:
  /// then "keep the original" is the static first choice.
  double originalUs = 0;
  bool keepOriginal = false;
  /// "Keep the original" in the one ranking of everything offered (1 =
  /// first): first when keepOriginal, otherwise after the candidates
  /// estimated faster than the original and before the rest, so that a
  /// rewrite estimated slower than the code as written never ranks above it.
  size_t originalRank = 1;
};

/// Every applicable rewrite (prepare() true) x its variants(), plus the
/// thesis' composition chains of the device-launch rewrites, for the loops
/// and launches of `kernel`, or of every kernel with findings when it is
/// empty. Fails with a message listing the kernels when `kernel` is unknown.
/// Chains are listed when their first step applies; later steps are checked
/// when the variant is generated.
llvm::Expected<CandidateList> listCandidates(const AnalyzedTU &tu, const Config &config, const std::string &kernel);

/// The static order, as text for --help and the docs.
const char *staticOrderDescription();

/// Checks that .nestor.yaml's profile section can drive a plan: build and run
/// commands, and outputs or a check command. `configPath` is empty when no
/// .nestor.yaml was found; the message then says where one was looked for.
llvm::Error checkProfileConfig(const ProfileConfig &profile, const std::string &configPath, const std::string &lookedFrom);

struct PlanRequest {
  std::string planDir;            ///< written: plan.json, variants/, runtime/
  std::string projectDir;         ///< copied by the runner once per variant; must contain the file
  std::string runtimeIncludeDir;  ///< the directory holding nestor/*.cuh
  ProfileConfig profile;          ///< checked with checkProfileConfig()
  std::string configPath;         ///< recorded in the plan's comment
  /// "cupti" (default) or "wall_clock". Under the runner's test seam
  /// (NESTOR_RUNNER_ASSUME_DEVICES set) the default is wall_clock, since the
  /// runner refuses CUPTI timing there.
  std::string timingMode;
  unsigned budget = 0;            ///< keep the first N generated candidates; 0 = all
  /// Write project_dir relative to the plan (plan and project move together,
  /// e.g. in one repository), or absolute.
  bool relativeProjectDir = true;
  std::function<void(const std::string &)> progress; ///< one line per candidate; may be empty
  const std::atomic<bool> *cancelled = nullptr;
};

struct PlanOutput {
  std::string planPath;
  std::vector<Candidate> kept;                             ///< variants of the plan, in static order
  std::vector<std::pair<Candidate, std::string>> dropped;  ///< could not be generated, and why
  size_t notTried = 0;                                     ///< left out by the budget
  std::vector<std::string> warnings;                       ///< e.g. a tolerance that cannot apply
  nlohmann::json plan;
};

/// Generates the sources of the candidates (in static order, until `budget`
/// of them succeeded; a chain whose later step does not apply is dropped and
/// the next candidate takes its place) and writes the plan. `opts` are the
/// options `tu` was analysed with (re-used for the re-analyses of chains).
llvm::Expected<PlanOutput> writePlan(const AnalyzedTU &tu, const AnalysisOptions &opts, const CandidateList &list,
                                     const PlanRequest &request);

/// Text lines describing the candidates (the "static candidate list" shown
/// when nothing can be measured): "N. id: title — where".
std::vector<std::string> describeCandidates(const std::vector<Candidate> &candidates);

/// Where local runs keep their plans, so the runner's cache survives between
/// runs: $XDG_CACHE_HOME/nestor/profile/<stem>-<kernel>-<hash of the path>.
std::string defaultPlanDir(const std::string &file, const std::string &kernel);

/// `s` with every character but letters, digits and `_.+-` replaced by `_`
/// (variant ids and plan folder names).
std::string sanitizeId(const std::string &s);

/// The include directory with nestor/*.cuh: $NESTOR_RUNTIME_DIR, then
/// ../include/nestor next to the running binary (installed layout), then the
/// source tree this was built from.
std::string runtimeIncludeDir();

} // namespace nestor::planner
