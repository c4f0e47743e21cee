// Code actions, answered without waiting for an analysis.
//
// At the end of each analysis the document's worker turns the snapshot into
// an ActionIndex: plain data (no AST), so the server's own thread can read it
// while the worker analyses the next version. A codeAction request is then
// answered at once from the newest index, also while a newer version is
// being analysed, as long as the edits since that index left the text the
// answer is about untouched (TextDelta); otherwise it waits for the analysis
// of the current text. Edits are never taken from an index of another text:
// an answer for a newer version leaves them to codeAction/resolve, which runs
// on the analysis of the version the action names and finds its target again.
#pragma once

#include "Features.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <memory>

namespace nestor::lsp {

/// A finding's quick fix, in the byte offsets of the index's text.
struct FixAction {
  std::string ruleId, title;
  size_t begin = 0, end = 0;         ///< the finding's span
  size_t touchBegin = 0, touchEnd = 0; ///< the finding and every edit of the fix
  struct Edit {
    size_t begin, end;
    std::string newText;
  };
  std::vector<Edit> edits;
  Diagnostic diagnostic;             ///< as published for this version
};

/// The rewrites offered for one loop or launch of the main file.
struct TargetActions {
  RewriteTarget target;
  size_t spanBegin = 0;      ///< where the loop or launch starts
  size_t begin = 0, end = 0; ///< the target and the lines that select it
  std::vector<ShownOffer> offers;
};

struct ActionIndex {
  int64_t version = 0;
  std::string text;
  LineIndex lines;
  std::vector<FixAction> fixes;
  std::vector<TargetActions> targets;
  /// 1-based line -> targets[]: the launch spanning the line, the loop
  /// starting on it (or after its `#pragma np`), as targetAtLine() chooses.
  std::map<unsigned, size_t> launchAtLine, loopAtLine;
};

/// The index of an analysed snapshot; null when `abandon()` says a newer
/// version is waiting (checked between targets: prepare() is the cost).
std::shared_ptr<const ActionIndex> buildActionIndex(const Snapshot &s, const proto::URIForFile &uri,
                                                    llvm::function_ref<bool()> abandon = [] { return false; });

/// The document as the client has it now.
struct DocumentNow {
  int64_t version = 0;
  llvm::StringRef text;
  const LineIndex *lines = nullptr; ///< of `text`, optional
};

struct CodeActionRequest {
  proto::URIForFile uri;
  size_t begin = 0, end = 0;         ///< byte offsets in the current text
  std::vector<std::string> only;     ///< requested kinds (prefixes); empty: all
  bool resolveEdits = false;         ///< leave edits to codeAction/resolve
  bool documentChanges = true;
};

/// The actions at the request's range, from `index`. When the index is of an
/// older version than `now`, requires req.resolveEdits (edits are resolved
/// later, on the current analysis) and answers nullopt when an edit since the
/// index touched the range, a quick fix under it or the loop/launch on its
/// line: then only the analysis of the current text can answer. Rewrite
/// actions carry no edit (resolveCodeAction computes it).
std::optional<llvm::json::Array> codeActions(const ActionIndex &index, const CodeActionRequest &req,
                                             const DocumentNow &now);

/// When codeActions(index, ...) could not answer because the edits since the
/// index touched the request's line, its loop or launch: the rewrites of the
/// loop or launch on that line as the index saw it, titles only (each one's
/// edit comes from codeAction/resolve, which finds the target again on the
/// current analysis and runs its prepare() again, failing if it no longer
/// applies), and the quick fixes the edits left untouched. Never an edit of
/// another text. Requires req.resolveEdits.
llvm::json::Array codeActionsAroundEdit(const ActionIndex &index, const CodeActionRequest &req, const DocumentNow &now);

/// The actions of a snapshot's own text (offsets in s.text). Uses `index`
/// when it is of this snapshot, else builds one; computes rewrite edits at
/// once unless req.resolveEdits.
llvm::json::Array codeActions(const Snapshot &s, const CodeActionRequest &req, const ActionIndex *index = nullptr);

/// codeAction/resolve: computes the edit of an action made by codeActions()
/// (a rewrite, or a quick fix answered for a newer version than its index).
/// Fails with ContentModified when `s` is not the version the action names;
/// with RequestFailed when its loop, launch or finding is gone or the rewrite
/// no longer applies.
llvm::Expected<llvm::json::Value> resolveCodeAction(const Snapshot &s, const llvm::json::Value &action,
                                                    bool documentChanges);

} // namespace nestor::lsp
