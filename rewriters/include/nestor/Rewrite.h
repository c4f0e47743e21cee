// The rewrite interface: one rewrite per file under rewriters/, modelled on
// clangd's tweaks and rust-analyzer's assists.
//
//   prepare(): cheap. Does the rewrite apply to this target with these
//              parameters, and if not, why not (one line naming the blocking
//              construct and its location)?
//   apply():   the edits, as clang::tooling::Replacements on the analysed
//              file. Pure: it reads the model and the AST of the AnalyzedTU
//              and never parses on its own.
//
// A rewrite that cannot be made safe is not offered: prepare() says why.
#pragma once
#include "nestor/Analysis.h"
#include "nestor/Finding.h"

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nestor {

struct RewriteTarget {
  enum class Kind { Loop, Launch };
  Kind kind = Kind::Loop;
  int id = -1; ///< LoopSite::id or LaunchSite::id
};

using RewriteParams = std::map<std::string, std::string>;

/// The edits of one rewrite, per file (absolute path): the analysed file's,
/// and those of other translation units of the project that launch its
/// kernel (AnalysisOptions::project, nestor/ProjectIndex.h).
using FileReplacements = std::map<std::string, clang::tooling::Replacements>;

struct ParamSpec {
  std::string name;
  std::vector<std::string> values; ///< allowed values; empty: any integer
  std::string defaultValue;
  std::string meaning;
  /// The value tried first where the papers name a best one (the profile
  /// planner's order); empty: defaultValue.
  std::string preferred = "";
};

struct Applicability {
  bool applies = false;
  std::string reason;  ///< why not, one line
  SourceSpan blocker;  ///< the construct that blocks it, when there is one
  /// When it applies: what else it changes that the title does not say
  /// (e.g. "reshapes the launch: 2x the blocks, 32 masters per block").
  std::string note;
  static Applicability yes(std::string note = "") { return {true, "", {}, std::move(note)}; }
  static Applicability no(std::string reason, SourceSpan at = {}) { return {false, std::move(reason), std::move(at), ""}; }
  /// `title`, with the note when there is one: what a code action or --list shows.
  std::string titled(const std::string &title) const { return note.empty() ? title : title + " (" + note + ")"; }
};

/// One family of candidates a rewrite heads: the rewrite alone, or a chain
/// of rewrites applied in order at one target (threshold, then coarsen, then
/// aggregate). Its id is the rewrites' ids joined by '+'.
struct RewriteFamily {
  std::vector<std::string> rewrites; ///< this rewrite first, then those applied after it
  /// Where the papers' measurements put the family among the target's
  /// families, lower first: the order used where the cost model has no
  /// estimate (docs/profile-planner.md).
  unsigned paperRank = 0;
  /// The rank when the target is a loop whose trip count differs between
  /// threads, where the papers rank the loop rewrites differently.
  std::optional<unsigned> paperRankOnIrregularLoop = std::nullopt;
};

/// A mapping of the cost model (docs/mapping.md) that a rewrite makes.
struct RealisedMapping {
  /// The model's name of the mapping: a placement of an inner loop's
  /// iterations ("y", "lanes", "warp-tasks"), a template ("two-queues",
  /// "block-buffer", "global-buffer", "block-launch", "merge-path",
  /// "recursion-levels", "recursion-block-per-child") or one part of a
  /// launch chain ("threshold", "coarsen", "aggregate").
  std::string mapping;
  /// The parameter that carries the mapping's number (slaves, lanes,
  /// lb_threshold, threshold, factor, granularity); empty: none.
  std::string numberParam = "";
  /// Parameters the mapping fixes (CUDA-NP's np_type=intra for "lanes").
  RewriteParams fixedParams = {};
};

/// What a rewrite declares about itself beyond its id, title and
/// parameters, read by everything that ranks, plans or shows rewrites (the
/// profile planner, the mapping advisor, the server and the CLI): nobody
/// outside rewriters/ names a rewrite's id to know these facts.
struct RewriteInfo {
  /// It changes no generated code (an annotation): timing it would measure
  /// the original again.
  bool annotationOnly = false;
  /// The families it heads (itself alone first, then the chains it starts).
  std::vector<RewriteFamily> families;
  /// The cost model's mappings it makes.
  std::vector<RealisedMapping> realises;
};

class Rewrite {
public:
  virtual ~Rewrite() = default;
  /// Name used by `--apply` and in code actions: threshold, coarsen, aggregate,
  /// np, np-pragma, cte, subwarp.
  virtual const char *id() const = 0;
  virtual RewriteTarget::Kind targetKind() const = 0;
  /// One line for --help and hovers.
  virtual const char *summary() const = 0;
  virtual std::vector<ParamSpec> params() const { return {}; }
  /// The parameter grid offered as code actions and profiled as variants.
  virtual std::vector<RewriteParams> variants() const { return {RewriteParams{}}; }
  /// Its families, chains and mappings (see RewriteInfo).
  virtual const RewriteInfo &info() const = 0;
  /// The value of a parameter tried first at a target: the spec's preferred
  /// value, else its default. A rewrite whose best value depends on the
  /// source (CUDA-NP: the pragma's clauses) overrides it.
  virtual std::optional<std::string> preferredValue(const ParamSpec &spec, const FileModel &,
                                                    const RewriteTarget &) const {
    if (!spec.preferred.empty()) return spec.preferred;
    if (!spec.defaultValue.empty()) return spec.defaultValue;
    return std::nullopt;
  }
  /// Title of a code action, e.g. "CUDA-NP: 4 slaves, inter-warp".
  virtual std::string title(const RewriteParams &p) const = 0;
  virtual Applicability prepare(const AnalyzedTU &tu, const RewriteTarget &t, const RewriteParams &p) const = 0;
  /// Requires prepare(...).applies.
  virtual llvm::Expected<clang::tooling::Replacements> apply(const AnalyzedTU &tu, const RewriteTarget &t,
                                                             const RewriteParams &p) const = 0;
  /// Requires prepare(...).applies. Every file's edits: a rewrite that must
  /// change launches in other translation units (a kernel analysed with the
  /// project index) returns them here, and its apply() fails instead of
  /// returning the analysed file's edits alone. The default: apply()'s edits.
  virtual llvm::Expected<FileReplacements> applyAcrossFiles(const AnalyzedTU &tu, const RewriteTarget &t,
                                                            const RewriteParams &p) const {
    auto r = apply(tu, t, p);
    if (!r) return r.takeError();
    return FileReplacements{{tu.mainFile(), std::move(*r)}};
  }
};

/// All rewrites, in the order they compose (threshold -> coarsen -> aggregate,
/// then the loop rewrites).
const std::vector<const Rewrite *> &allRewrites();
const Rewrite *findRewrite(const std::string &id);

/// One variant of a rewrite at a target: its parameters resolved
/// (resolveParams) and prepare()'s verdict.
struct Offer {
  const Rewrite *rewrite = nullptr;
  RewriteParams params;
  Applicability applicability;
};

/// How far offersAt prepares: every variant, or until one applies (the
/// rules only ask whether anything is offered).
enum class OfferSearch { Every, UntilOneApplies };

/// Every variant of every rewrite of the target's kind (or of `only`), in
/// the registry's order: the one loop behind code actions, hovers, --list,
/// the planner and the rules' offer oracle.
std::vector<Offer> offersAt(const AnalyzedTU &tu, const RewriteTarget &t, const Rewrite *only = nullptr,
                            OfferSearch search = OfferSearch::Every);

/// An offer as the front ends show it (code actions, hovers, --list).
struct ShownOffer {
  const Rewrite *rewrite = nullptr;
  RewriteParams params; ///< resolved
  std::string title;    ///< with prepare()'s note
  bool applies = false;
  std::string reason;   ///< why not, naming the blocking line (refusalText); empty when it applies
};

/// offersAt's offers with their titles and refusals as shown.
std::vector<ShownOffer> shownOffersAt(const AnalyzedTU &tu, const RewriteTarget &t);

/// Each rewriters/<name>/<Name>.cpp defines `const Rewrite &NameRewrite()`.
#define NESTOR_REWRITE(Name) const Rewrite &Name##Rewrite();
#include "nestor/Rewrites.def"
#undef NESTOR_REWRITE

// ---- helpers shared by rewrites and front ends ------------------------------

/// Parameters with defaults filled in and values checked against params().
llvm::Expected<RewriteParams> resolveParams(const Rewrite &r, const RewriteParams &given);

/// The target at a line: for Launch, the launch spanning the line; for Loop,
/// the loop starting on the line or the loop a pragma on that line precedes.
std::optional<RewriteTarget> targetAtLine(const FileModel &m, RewriteTarget::Kind kind, unsigned line);

/// Applies replacements to the analysed text.
llvm::Expected<std::string> applyReplacements(const AnalyzedTU &tu, const clang::tooling::Replacements &r);

/// Replacements as TextEdits (line/column/offset) on the analysed text, for LSP.
std::vector<TextEdit> toTextEdits(const AnalyzedTU &tu, const clang::tooling::Replacements &r);

/// A replacement of [span.begin.offset, span.end.offset) of the main file.
clang::tooling::Replacement replacementFor(const AnalyzedTU &tu, unsigned beginOffset, unsigned endOffset,
                                           llvm::StringRef text);

} // namespace nestor
