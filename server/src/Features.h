// What the server answers, computed from one analysed version of a document
// (a Snapshot): diagnostics, hovers, completion, code actions, code lenses
// and the static candidates of the profile command. Functions here run on
// the document's worker thread and never touch the transport.
#pragma once

#include "Document.h"
#include "ProtocolExtras.h"

#include "nestor/Analysis.h"
#include "nestor/Config.h"
#include "nestor/Finding.h"
#include "nestor/Rewrite.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nestor::lsp {

/// One analysed version of a document. `tu` is null when the analysis
/// failed; `error` then says why (shown as a diagnostic).
struct Snapshot {
  int64_t version = 0;
  std::string text;
  /// Line starts of `text`; empty: positions are found by scanning the text.
  LineIndex lines;
  std::unique_ptr<AnalyzedTU> tu;
  std::vector<Finding> findings;
  std::optional<std::string> error;
  /// `error` is a crash the analysis recovered from (CrashRecovery.h); the
  /// place it was analysing then, when known.
  bool internalError = false;
  SourceSpan errorAt;
  Config config;
  /// .nestor.yaml exists but could not be read: the defaults were used.
  std::optional<std::string> configError;
};

/// The LSP diagnostics of a snapshot: one per finding (code = rule id,
/// codeDescription.href = its docs page, source "nestor", the related
/// locations, data = Finding::data + the version), or one for a failed
/// analysis.
std::vector<Diagnostic> diagnosticsFor(const Snapshot &s, const proto::URIForFile &uri);

/// Markdown hover at a byte offset: a `#pragma np` line, a kernel launch or a
/// loop; nullopt elsewhere. `range` receives the range the hover is about.
std::optional<std::string> hoverAt(const Snapshot &s, size_t offset, proto::Range &range);

/// The pragma part of a hover, testable without parsing: the directive, the
/// loop it is attached to (if any) and the problems found with it.
std::string pragmaHover(const NpPragma &pragma, const LoopSite *loop, const std::vector<std::string> &problems);

/// Completion items for the text of a line up to the cursor, when the cursor
/// is inside a `#pragma np` directive; nullopt otherwise.
std::optional<llvm::json::Array> pragmaCompletions(llvm::StringRef lineBeforeCursor);

/// "Profile variants" above each kernel that has findings.
std::vector<CodeLens> codeLenses(const Snapshot &s, const proto::URIForFile &uri);

/// Every applicable rewrite x variant of the loops and launches inside
/// `kernel`: [{rewrite, params, title, name, target, line, summary}].
llvm::Expected<llvm::json::Array> profileCandidates(const Snapshot &s, const std::string &kernel);

/// Range of a span of the snapshot's main file (UTF-16 positions).
proto::Range rangeOf(const Snapshot &s, const SourceSpan &span);
/// UTF-16 position of a byte offset of the snapshot's text.
proto::Position positionIn(const Snapshot &s, size_t offset);
bool isMainFile(const Snapshot &s, const SourceSpan &span);

/// One rewrite x variant for a target, with prepare()'s verdict.

llvm::json::Value paramsJSON(const RewriteParams &p);
proto::TextEdit lspEdit(const Snapshot &s, const TextEdit &e);
const char *targetKindName(RewriteTarget::Kind k);

} // namespace nestor::lsp
