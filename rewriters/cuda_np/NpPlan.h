// The CUDA-NP planner's entry point: plans the whole edit of a kernel for one
// parallel loop (cuda-np.md sections 2-3). Used by the `np` rewrite (strided
// loops) and the `subwarp` rewrite (map/reduce loops as for_each_index).
// The planner's phases: NpPlanner.h.
#pragma once
#include <map>
#include "nestor/Rewrite.h"

#include <string>

namespace nestor::loops {

enum class LoopForm {
  Strided,         ///< CUDA-NP: i = lb + slave_id * step; i += S * step
  SubwarpForEach,  ///< sub-warp: acc = subwarp::for_each_index<W>(...) (map/reduce loops)
};

struct NpConfig {
  unsigned slaves = 4;
  bool intra = false;
  /// Also transform the other `#pragma np parallel for` loops at the top level
  /// of the same kernel (CUDA-NP transforms a kernel, not a loop).
  bool allPragmaLoops = true;
  LoopForm form = LoopForm::Strided;
  bool requireIrregular = false; ///< sub-warp: only irregular loops
  std::string label;             ///< comment text naming the rewrite
};

/// Plans the whole edit. On failure returns the reason (and its location);
/// prepare() calls it and keeps only the verdict, apply() uses the edits.
struct NpPlan {
  bool ok = false;
  std::string reason;
  SourceSpan blocker;
  clang::tooling::Replacements edits;
  /// Edits of the launches in other translation units of the project
  /// (Kernel::externalLaunches), by file.
  std::map<std::string, clang::tooling::Replacements> otherFiles;
  std::string note; ///< what else changes, for the user (e.g. the launch is reshaped); "" when nothing
};
NpPlan planNp(const AnalyzedTU &tu, const RewriteTarget &t, const NpConfig &cfg);

} // namespace nestor::loops
