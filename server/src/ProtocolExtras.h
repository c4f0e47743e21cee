// The LSP 3.17 pieces that llvm/Support/LSP/Protocol.h lacks, in one place:
// initializationOptions and client capabilities Nestor reads, diagnostics
// with code/codeDescription/data, code actions with disabled/data and
// versioned edits (documentChanges), code lenses, workspace/executeCommand,
// $/cancelRequest, $/progress (workDoneProgress), didChangeConfiguration and
// the server capabilities. Everything else comes from LLVM's Protocol.h.
#pragma once

#include "llvm/Support/JSON.h"
#include "llvm/Support/LSP/Protocol.h"

#include <optional>
#include <string>
#include <vector>

namespace nestor::lsp {

namespace proto = llvm::lsp;

/// initializationOptions, and settings.nestor of didChangeConfiguration
/// (editors/vscode/src/config.ts). Missing keys keep their defaults.
struct NestorSettings {
  std::optional<std::string> compileCommandsDir;
  std::string gpuArch = "sm_90";
  bool workspaceTrusted = false;
  std::string buildCommand;
  std::string runCommand;
  /// nestor.profile times the N most promising variants (0: all). The
  /// editor waits for the answer, so the default keeps it to a few minutes.
  unsigned profileBudget = 12;
};
bool fromJSON(const llvm::json::Value &v, NestorSettings &out, llvm::json::Path p);
llvm::json::Value toJSON(const NestorSettings &s);

struct InitializeParams {
  proto::InitializeParams base;
  std::optional<NestorSettings> settings; ///< initializationOptions
  /// textDocument.codeAction.resolveSupport.properties contains "edit":
  /// rewrite edits may be left to codeAction/resolve.
  bool codeActionResolvesEdit = false;
  /// workspace.workspaceEdit.documentChanges: versioned edits are understood.
  bool documentChanges = false;
};
bool fromJSON(const llvm::json::Value &v, InitializeParams &out, llvm::json::Path p);

struct DidChangeConfigurationParams {
  std::optional<NestorSettings> settings; ///< settings.nestor
};
bool fromJSON(const llvm::json::Value &v, DidChangeConfigurationParams &out, llvm::json::Path p);

struct CancelParams {
  llvm::json::Value id = nullptr; ///< number or string
};
bool fromJSON(const llvm::json::Value &v, CancelParams &out, llvm::json::Path p);

struct WorkDoneProgressCancelParams {
  llvm::json::Value token = nullptr;
};
bool fromJSON(const llvm::json::Value &v, WorkDoneProgressCancelParams &out, llvm::json::Path p);

struct CodeLensParams {
  proto::TextDocumentIdentifier textDocument;
};
bool fromJSON(const llvm::json::Value &v, CodeLensParams &out, llvm::json::Path p);

struct ExecuteCommandParams {
  std::string command;
  llvm::json::Array arguments;
  std::optional<llvm::json::Value> workDoneToken;
};
bool fromJSON(const llvm::json::Value &v, ExecuteCommandParams &out, llvm::json::Path p);

/// A diagnostic with the 3.17 fields LLVM's lsp::Diagnostic has no room for.
struct Diagnostic {
  proto::Diagnostic base;
  std::string code;          ///< rule id
  std::string codeHref;      ///< codeDescription.href
  llvm::json::Object data;   ///< Finding::data + the document version
};
llvm::json::Value toJSON(const Diagnostic &d);

/// Edits tied to one version of one document: sent as documentChanges, so
/// the client refuses them if the document has changed since.
struct VersionedEdit {
  proto::URIForFile uri;
  int64_t version = 0;
  std::vector<proto::TextEdit> edits;
};
/// As a WorkspaceEdit: documentChanges (versioned) or, for clients without
/// documentChanges support, plain changes.
/// `others`: edits of further files in the same WorkspaceEdit (a rewrite
/// that changes launches in other files of the project); version -1 sends
/// a null version (the file as it is on disk, not an open document's).
llvm::json::Value toJSON(const VersionedEdit &e, bool documentChanges = true,
                         const std::vector<VersionedEdit> &others = {});

struct CodeAction {
  std::string title;
  std::string kind; ///< "quickfix", "refactor.rewrite"
  std::vector<llvm::json::Value> diagnostics;
  bool isPreferred = false;
  std::optional<VersionedEdit> edit;
  std::optional<std::string> disabledReason;
  std::optional<llvm::json::Value> data; ///< what codeAction/resolve needs
};
llvm::json::Value toJSON(const CodeAction &a, bool documentChanges = true);

struct CodeLens {
  proto::Range range;
  std::string title;
  std::string command;
  llvm::json::Array arguments;
};
llvm::json::Value toJSON(const CodeLens &l);

/// `$/progress` values (WorkDoneProgressBegin / Report / End).
llvm::json::Value progressBegin(llvm::StringRef title, bool cancellable, llvm::StringRef message,
                                std::optional<unsigned> percentage);
llvm::json::Value progressReport(llvm::StringRef message, std::optional<unsigned> percentage);
llvm::json::Value progressEnd(llvm::StringRef message);
llvm::json::Value progressParams(const llvm::json::Value &token, llvm::json::Value value);

/// The capabilities `nestor lsp` announces in its initialize result.
llvm::json::Value serverCapabilities();

/// The command the "Profile variants" code lens runs.
inline constexpr const char *kProfileCommand = "nestor.profile";

} // namespace nestor::lsp
