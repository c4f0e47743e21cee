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

/// Writes `contents` to `path` atomically (temporary file in the same
/// directory, then rename): the file is never left half-written.
llvm::Error writeFileAtomically(const std::string &path, llvm::StringRef contents);

} // namespace nestor
