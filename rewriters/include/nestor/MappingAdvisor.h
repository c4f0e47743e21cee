// Which rewrites realise a mapping of the static model (nestor/Mapping.h),
// and whether they apply here: the bridge between the model's ranking and the
// rewrites that front ends offer (`nestor analyze --json` mappings, the order
// of `nestor rewrite --list`, the LSP hover, `nestor profile`'s static order).
#pragma once
#include "nestor/Mapping.h"
#include "nestor/Rewrite.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace nestor {

/// One rewrite (or chain, for launches) with parameters that turns the
/// original code into a mapping, and prepare()'s verdict on this target.
struct Realisation {
  std::vector<std::pair<std::string, RewriteParams>> steps; ///< rewrite id and resolved parameters
  bool applies = false;
  std::string reason; ///< why not, when it does not apply (first step's prepare)
  std::string note;   ///< what else it changes (e.g. the launch is reshaped)
  std::string command() const; ///< "--apply np --param slaves=8 --param np_type=intra"
};

struct AdvisedMapping {
  const Mapping *mapping = nullptr;
  unsigned rank = 0;                      ///< 1 = best
  std::vector<Realisation> realisations;  ///< empty for the original code and for mappings no rewrite makes
};

struct MappingAdvice {
  TargetMappings target;
  std::vector<AdvisedMapping> advised; ///< parallel to target.ranked
  /// The best-ranked mapping that some rewrite realises here, and that
  /// rewrite (nullptrs if none). Needs the verdicts of prepare().
  std::pair<const AdvisedMapping *, const Realisation *> bestRealisable() const;
  /// The rank and mapping that a rewrite (chain) realises, if the model ranks it.
  const AdvisedMapping *forSteps(const std::vector<std::pair<std::string, RewriteParams>> &steps) const;
};

/// The rewrites that realise `m` (without asking prepare()).
std::vector<Realisation> realisationsOf(const Mapping &m, bool isLaunch);

/// Ranks the target's mappings and, with `checkRealisations`, asks prepare()
/// whether each realisation applies here. Callers that only need the ranks
/// (forSteps) of rewrites they prepare themselves pass false and skip that work.
std::optional<MappingAdvice> adviseMappings(const AnalyzedTU &tu, const MappingConfig &cfg, const RewriteTarget &t,
                                            bool checkRealisations = true);

/// JSON for `nestor analyze --json`: the first `top` ranked mappings, every
/// mapping a rewrite realises and the original code's, the pruned ones and the
/// assumptions.
llvm::json::Value toJSON(const MappingAdvice &a, size_t top = 8);

/// One line on the first-ranked mapping: the model's explanation when a
/// rewrite that applies here makes it (or it is the original code); otherwise
/// it says plainly that no rewrite makes it here (and why the one that would
/// is refused), then the best mapping a rewrite does make, if any. Needs the
/// verdicts (checkRealisations). Used by `nestor rewrite --list` and the hover.
std::string adviceLine(const MappingAdvice &a);

/// Markdown for hovers: the first-ranked mapping, why, and how to get it.
std::string mappingMarkdown(const MappingAdvice &a);

} // namespace nestor
