// Shared machinery of the loop rewrites (cuda_np/, cte/, subwarp/): the
// CUDA-NP kernel transformation engine, the "map/reduce loop" matcher used by
// CTE and sub-warp decomposition, and launch-configuration evaluation.
// Design and limits: docs/rewrites-loops.md.
#pragma once
#include "nestor/Rewrite.h"

#include <optional>
#include <string>
#include <vector>

namespace clang {
class Expr;
class ForStmt;
class VarDecl;
} // namespace clang

namespace nestor::loops {

/// Block shape of a launch when it is a compile-time constant.
struct BlockShape {
  unsigned x = 1, y = 1, z = 1;
  unsigned threads() const { return x * y * z; }
  bool operator==(const BlockShape &o) const { return x == o.x && y == o.y && z == o.z; }
};

/// Evaluates the block argument of host launch `launchId` (integer constant
/// expressions, `dim3(...)` temporaries and local `dim3`/integer variables
/// initialised from constants and never written afterwards).
std::optional<BlockShape> constantBlock(const AnalyzedTU &tu, int launchId);

/// `for (T i = begin; i < end; ++i) { [U v = f(i);] acc = acc OP v; }` and the
/// `acc OP= f(i)` spellings (issue 4, CTE).
struct MapReduceLoop {
  std::string iv, ivType;
  std::string begin, end;       ///< texts
  std::string acc, accType;     ///< the accumulator
  ReductionOp op = ReductionOp::Add;
  std::string mapped;           ///< f(i), text
  /// Thread-private locals f reads (passed to CTE as task descriptors).
  std::vector<std::pair<std::string, std::string>> descriptors; ///< (name, type)
  bool csrLike = false;         ///< begin = P[Q], end = P[Q + 1]
  /// The expressions behind begin, end and mapped (for rewrites that must
  /// re-emit them with their own edits applied).
  const clang::Expr *beginExpr = nullptr, *endExpr = nullptr, *mappedExpr = nullptr;
};
/// Matches the loop, or says why it does not have the map/reduce shape.
std::optional<MapReduceLoop> matchMapReduce(const AnalyzedTU &tu, const LoopSite &l, std::string &why,
                                            SourceSpan &where);

const char *opFunctor(ReductionOp op); ///< "nestor::op::add", ...

/// Text inserted after the last #include of the main file (or at its start).
clang::tooling::Replacement includeReplacement(const AnalyzedTU &tu, llvm::StringRef header);

// ---- the CUDA-NP engine ----------------------------------------------------
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
};
NpPlan planNp(const AnalyzedTU &tu, const RewriteTarget &t, const NpConfig &cfg);

} // namespace nestor::loops
