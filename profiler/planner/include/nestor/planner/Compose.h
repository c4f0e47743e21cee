// Composing rewrites: threshold -> coarsen -> aggregate is the thesis' order
// (§3.3). After each step the result is analysed again, and the same target
// (the n-th launch of the child in its parent, or the n-th loop of the
// function) is looked up in the new text, since earlier steps move it.
//
// Shared by `nestor rewrite --apply a,b,c` and `nestor profile` (which
// generates every chain it times this way).
#pragma once
#include "nestor/Analysis.h"
#include "nestor/Rewrite.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nestor {

/// A target identified independently of line numbers and ids, so that it
/// can be found again after an earlier rewrite moved it.
struct StableTarget {
  RewriteTarget::Kind kind = RewriteTarget::Kind::Loop;
  std::string function; ///< loop: enclosing function; launch: parent
  std::string child;    ///< launch only
  int ordinal = 0;      ///< n-th such site in the function
};
StableTarget stableTarget(const FileModel &m, const RewriteTarget &t);
std::optional<RewriteTarget> findStableTarget(const FileModel &m, const StableTarget &s);

struct ComposeStep {
  const Rewrite *rewrite = nullptr;
  /// Given parameters; those the rewrite does not declare are ignored, the
  /// rest are checked and completed with resolveParams().
  RewriteParams params;
};

/// Why a chain could not be applied, with the step that failed.
class ComposeError : public llvm::ErrorInfo<ComposeError> {
public:
  enum class Kind {
    NoTarget,       ///< the step's kind of target is not where it was asked for
    BadParams,      ///< resolveParams() refused the parameters
    NotApplicable,  ///< prepare() said no
    ApplyFailed,    ///< apply() or applyReplacements() failed
    AnalysisFailed, ///< the intermediate text could not be analysed again
  };
  static char ID;
  ComposeError(Kind kind, size_t step, std::string rewriteId, std::string message, SourceSpan blocker = {})
      : kind(kind), step(step), rewriteId(std::move(rewriteId)), message(std::move(message)), blocker(std::move(blocker)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

  Kind kind;
  size_t step;           ///< index of the failing step
  std::string rewriteId; ///< its rewrite
  std::string message;   ///< prepare()'s reason, the parameter error, ...
  SourceSpan blocker;    ///< what blocks it, when prepare() said
};

struct ComposeResult {
  std::string text;                          ///< the rewritten file
  std::vector<RewriteParams> resolvedParams; ///< per step, defaults filled in
};

/// Where the first step of each target kind applies, in the text it is given
/// (e.g. "the launch spanning line 42"). Later steps of the same kind follow
/// the StableTarget of the previous one.
using TargetLocator = std::function<std::optional<RewriteTarget>(const FileModel &, RewriteTarget::Kind)>;

/// Intermediate analyses of the last chain composed from one starting
/// analysis and target, so that chains sharing a prefix (threshold 128 +
/// coarsen 2, threshold 128 + coarsen 4, ...) re-analyse the shared part
/// once. Only the last chain's prefixes are kept (each analysis holds a whole
/// AST), so compose chains in lexicographic order of their steps.
struct ComposeMemo {
  struct Prefix {
    std::string key;                 ///< the steps so far, with resolved parameters
    std::unique_ptr<AnalyzedTU> tu;  ///< analysis of the text after those steps
    StableTarget where;              ///< the target of the last of them
  };
  std::vector<Prefix> prefixes;
  size_t analyses = 0; ///< re-analyses done through this memo (tests check reuse)
};

/// Applies `steps` in order, starting from `tu` (analysed with `opts`, which
/// is reused with the intermediate text as contents for each re-analysis).
/// `tu` is borrowed: the first step runs on it without parsing again.
/// `preambles` and `memo` may be null.
llvm::Expected<ComposeResult> composeRewrites(const AnalyzedTU &tu, const AnalysisOptions &opts,
                                              const std::vector<ComposeStep> &steps, const TargetLocator &locate,
                                              PreambleCache *preambles = nullptr, ComposeMemo *memo = nullptr);

} // namespace nestor
