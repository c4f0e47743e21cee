// The `nestor lsp` server: the LSP methods Nestor handles, on LLVM's
// JSONTransport and MessageHandler. Lifecycle, documents, cancellation and
// the editor features are in Server.cpp; the `nestor.profile` command and its
// code lens in ServerProfile.cpp; the feature logic itself in Features.cpp;
// input checking in CheckedInput.h; document scheduling in DocumentWorker.h.
#pragma once
#include "CheckedInput.h"
#include "CodeActions.h"
#include "DocumentWorker.h"
#include "Features.h"
#include "ProtocolExtras.h"

#include "nestor/LspServer.h"
#include "nestor/ProjectIndex.h"

#include "llvm/Support/LSP/Protocol.h"
#include "llvm/Support/LSP/Transport.h"

#include <map>
#include <thread>
#include <vector>

namespace nestor::lsp {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;
using proto::Callback;
using proto::ErrorCode;

inline llvm::Error lspError(ErrorCode code, const llvm::Twine &msg) {
  return llvm::make_error<proto::LSPError>(msg.str(), code);
}

/// Params taken as raw JSON (codeAction/resolve gets back the whole action).
struct RawParams {
  Value value = nullptr;
};
inline bool fromJSON(const Value &v, RawParams &out, llvm::json::Path) {
  out.value = v;
  return true;
}


class Server {
public:
  Server(proto::MessageHandler &h, CheckedInput &input, const ServerOptions &opts)
      : input_(input), flags_(opts.flags),
        publishDiagnostics_(h.outgoingNotification<Value>("textDocument/publishDiagnostics")),
        progress_(h.outgoingNotification<Value>("$/progress")),
        logMessage_(h.outgoingNotification<Value>("window/logMessage")),
        showMessage_(h.outgoingNotification<Value>("window/showMessage")) {
    h.method("initialize", this, &Server::onInitialize);
    h.method("shutdown", this, &Server::onShutdown);
    h.method("textDocument/hover", this, &Server::onHover);
    h.method("textDocument/completion", this, &Server::onCompletion);
    h.method("textDocument/codeAction", this, &Server::onCodeAction);
    h.method("codeAction/resolve", this, &Server::onCodeActionResolve);
    h.method("textDocument/codeLens", this, &Server::onCodeLens);
    h.method("workspace/executeCommand", this, &Server::onExecuteCommand);
    h.method("nestor/serverStatus", this, &Server::onServerStatus);
    h.method(kParseErrorMethod, this, &Server::onParseError);
    h.method(kInvalidRequestMethod, this, &Server::onInvalidRequest);
    h.notification("initialized", this, &Server::onInitialized);
    h.notification("textDocument/didOpen", this, &Server::onDidOpen);
    h.notification("textDocument/didChange", this, &Server::onDidChange);
    h.notification("textDocument/didClose", this, &Server::onDidClose);
    h.notification("textDocument/didSave", this, &Server::onIgnored);
    h.notification("workspace/didChangeConfiguration", this, &Server::onDidChangeConfiguration);
    h.notification("$/cancelRequest", this, &Server::onCancelRequest);
    h.notification("window/workDoneProgress/cancel", this, &Server::onProgressCancel);
    h.notification("$/setTrace", this, &Server::onIgnored);
  }

  ~Server() {
    stopProfileRuns();
    for (auto &[_, d] : docs_)
      if (d->worker) d->worker->stop();
    docs_.clear(); // joins the workers
    closed_.clear();
  }

  bool shutdownReceived() const { return shutdown_; }

private:
  // -- lifecycle --
  void onInitialize(const InitializeParams &p, Callback<Value> reply);
  void onInitialized(const proto::NoParams &) {}
  void onShutdown(const proto::NoParams &, Callback<Value> reply);
  void onIgnored(const RawParams &) {}
  /// Nestor's own request: counters that let tests check preamble reuse
  /// and dropped edits.
  void onServerStatus(const proto::NoParams &, Callback<Value> reply);
  void onParseError(const RawParams &p, Callback<Value> reply) { reply(lspError(ErrorCode::ParseError, messageOf(p))); }
  void onInvalidRequest(const RawParams &p, Callback<Value> reply);
  static std::string messageOf(const RawParams &p);

  /// Requests need an initialised server that has not been shut down.
  bool ready(Callback<Value> &reply);
  bool readyForNotification(llvm::StringRef method);

  void applySettings(const NestorSettings &s);

  void log(proto::MessageType type, const std::string &message);

  // -- documents --
  OpenDocument *find(const proto::URIForFile &uri);
  /// The open, in-sync document of a request, or an error reply.
  OpenDocument *documentFor(const proto::URIForFile &uri, Callback<Value> &reply);

  void publish(const proto::URIForFile &uri, const Snapshot &s);
  void clearDiagnostics(const proto::URIForFile &uri);

  void onDidOpen(const proto::DidOpenTextDocumentParams &p);

  void onDidChange(const proto::DidChangeTextDocumentParams &p);

  void onDidClose(const proto::DidCloseTextDocumentParams &p);

  std::unique_ptr<DocumentWorker> makeWorker(const proto::URIForFile &uri);

  /// Stops a document's worker without waiting for it (its analysis may
  /// take a moment to notice the cancellation) and clears its diagnostics.
  void retire(OpenDocument &d);
  void reapClosed();

  void onDidChangeConfiguration(const DidChangeConfigurationParams &p);

  // -- cancellation --
  std::shared_ptr<std::atomic<bool>> registerRequest(const std::string &key);
  void forgetRequest(const std::string &key);
  void onCancelRequest(const CancelParams &p);
  void onProgressCancel(const WorkDoneProgressCancelParams &p);

  /// Runs `fn` on the document's worker, on its newest analysis; answers
  /// RequestCancelled if $/cancelRequest (or a closed document) comes first.
  void enqueue(OpenDocument &d, Callback<Value> reply,
               llvm::unique_function<llvm::Expected<Value>(const Snapshot &)> fn,
               std::shared_ptr<std::atomic<bool>> cancelled = nullptr, llvm::unique_function<void()> onDone = nullptr);

  // -- features --
  void onHover(const proto::TextDocumentPositionParams &p, Callback<Value> reply);

  void onCompletion(const proto::CompletionParams &p, Callback<Value> reply);

  void onCodeAction(const proto::CodeActionParams &p, Callback<Value> reply);

  void onCodeActionResolve(const RawParams &p, Callback<Value> reply);

  void onCodeLens(const CodeLensParams &p, Callback<Value> reply);

  void onExecuteCommand(const ExecuteCommandParams &p, Callback<Value> reply);

  // -- nestor.profile --
  //
  // On the document's worker: the static candidates, then (trusted workspace,
  // profile configured, a device, nestor-runner found) the plan: candidates
  // generated from this snapshot's analysis. nestor-runner then runs on a
  // thread of its own, so the document's other requests are not held up for
  // the minutes a profile takes; that thread answers the request.
  using Finish = std::function<void(llvm::Expected<Value>)>;
  struct ProfileJob {
    NestorSettings settings;
    FlagOptions flags;
    std::string kernel, file;
    std::optional<Value> token;
    std::shared_ptr<std::atomic<bool>> cancelled;
  };

  void report(const ProfileJob &job, const std::string &message, double fraction);

  void startProfile(const Snapshot &s, ProfileJob job, Finish finish);

  /// Cancels the running profiles and waits for their threads (each kills
  /// its nestor-runner and answers RequestCancelled).
  void stopProfileRuns();

  /// Like enqueue(), for a request that may be answered later from another
  /// thread: `fn` gets `finish`, to be called exactly once.
  void enqueueDeferred(OpenDocument &d, Callback<Value> reply, llvm::unique_function<void(const Snapshot &, Finish)> fn,
                       std::shared_ptr<std::atomic<bool>> cancelled, llvm::unique_function<void()> onDone);

  CheckedInput &input_;
  FlagOptions flags_;
  NestorSettings settings_;
  bool initialized_ = false, shutdown_ = false;
  bool resolveEdits_ = false, documentChanges_ = false;
  PreambleCache preambles_;
  /// One launch index per compile database of the open documents (created on
  /// the first document of that project; ProjectIndex.h), built on one thread.
  std::map<std::string, std::unique_ptr<ProjectIndex>> projects_;
  ProjectIndex *projectFor(const std::string &file);
  Stats stats_;
  std::map<std::string, std::unique_ptr<OpenDocument>> docs_;
  std::vector<std::unique_ptr<DocumentWorker>> closed_;
  std::mutex cancelMu_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> pending_, progressTokens_;
  proto::OutgoingNotification<Value> publishDiagnostics_, progress_, logMessage_, showMessage_;
  std::mutex profileMu_;
  bool profileStopping_ = false;
  std::vector<std::shared_ptr<std::atomic<bool>>> profileRuns_;
  std::vector<std::thread> profileThreads_;
};

} // namespace nestor::lsp
