#include "nestor/LspServer.h"

#include "Document.h"
#include "Features.h"
#include "ProtocolExtras.h"

#include "nestor/Lint.h"
#include "nestor/planner/Planner.h"
#include "nestor/planner/Runner.h"
#include "nestor/profiler/devices.h"

#include "llvm/ADT/FunctionExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/LSP/Transport.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/thread.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#ifndef NESTOR_VERSION
#define NESTOR_VERSION "0"
#endif

namespace nestor::lsp {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;
using proto::Callback;
using proto::ErrorCode;
using proto::Logger;

namespace {

llvm::Error lspError(ErrorCode code, const llvm::Twine &msg) {
  return llvm::make_error<proto::LSPError>(msg.str(), code);
}

/// Params taken as raw JSON (codeAction/resolve gets back the whole action).
struct RawParams {
  Value value = nullptr;
};
[[maybe_unused]] bool fromJSON(const Value &v, RawParams &out, llvm::json::Path) {
  out.value = v;
  return true;
}

// ---- input: every message is checked before LLVM's transport sees it ------
//
// JSONTransport::run() logs unparsable JSON without answering and stops the
// server on a message that is not a JSON-RPC 2.0 object. Neither is what the
// protocol asks for, so malformed messages are turned here into calls of two
// internal methods whose handlers answer ParseError / InvalidRequest (with
// id null when the id cannot be read, as JSON-RPC specifies). The input also
// remembers the id of the request it just handed over: the transport calls
// the handler synchronously, so that is the id of the request being
// dispatched, which $/cancelRequest refers to.
constexpr llvm::StringLiteral kParseErrorMethod("$/nestor/parseError");
constexpr llvm::StringLiteral kInvalidRequestMethod("$/nestor/invalidRequest");

class CheckedInput final : public proto::JSONTransportInput {
public:
  explicit CheckedInput(std::FILE *in) : file_(in) {}
  bool hasError() const override { return file_.hasError(); }
  bool isEndOfInput() const override { return file_.isEndOfInput(); }
  llvm::LogicalResult readDelimitedMessage(std::string &json) override {
    return check(file_.readDelimitedMessage(json), json);
  }
  llvm::LogicalResult readStandardMessage(std::string &json) override {
    return check(file_.readStandardMessage(json), json);
  }
  const std::optional<Value> &lastId() const { return lastId_; }

private:
  llvm::LogicalResult check(llvm::LogicalResult read, std::string &json) {
    lastId_.reset();
    if (llvm::failed(read)) return read;
    auto replace = [&](llvm::StringRef method, Value id, llvm::StringRef message) {
      json = llvm::formatv("{0}", Value(Object{{"jsonrpc", "2.0"},
                                               {"id", std::move(id)},
                                               {"method", method},
                                               {"params", Object{{"message", message}}}}))
                 .str();
      return llvm::success();
    };
    auto parsed = llvm::json::parse(json);
    if (!parsed) return replace(kParseErrorMethod, nullptr, "parse error: " + llvm::toString(parsed.takeError()));
    Object *o = parsed->getAsObject();
    if (!o) return replace(kInvalidRequestMethod, nullptr, "invalid request: the message is not a JSON object");
    Value id = nullptr;
    bool hasId = false;
    if (const Value *i = o->get("id")) {
      if (i->getAsInteger() || i->getAsString()) { id = *i; hasId = true; }
      else if (!i->getAsNull()) return replace(kInvalidRequestMethod, nullptr, "invalid request: id must be a number or a string");
    }
    if (o->getString("jsonrpc") != std::optional<llvm::StringRef>("2.0"))
      return replace(kInvalidRequestMethod, id, "invalid request: \"jsonrpc\": \"2.0\" is missing");
    const Value *method = o->get("method");
    if (method && !method->getAsString())
      return replace(kInvalidRequestMethod, id, "invalid request: method must be a string");
    if (!method && !o->get("id"))
      return replace(kInvalidRequestMethod, nullptr, "invalid request: neither a method nor an id");
    if (method && hasId) lastId_ = id;
    return llvm::success();
  }

  proto::JSONTransportInputOverFile file_;
  std::optional<Value> lastId_;
};

std::string idKey(const Value &id) { return llvm::formatv("{0}", id).str(); }

// ---- one worker per document -----------------------------------------------

/// Counters behind the `nestor/serverStatus` request (tests, benchmarks).
struct Stats {
  std::atomic<size_t> analyses{0};        ///< analyses that completed
  std::atomic<size_t> cancelled{0};       ///< analyses abandoned for a newer version
  std::atomic<size_t> superseded{0};      ///< queued analyses dropped before they started
};

struct Task {
  enum class Kind { Analyze, Request } kind = Kind::Request;
  int64_t version = 0;
  std::string text;
  FlagOptions flags;
  std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
  llvm::unique_function<void(const Snapshot *)> run; ///< Request
  llvm::unique_function<void()> onCancel;            ///< Request: answer RequestCancelled
};

class DocumentWorker {
public:
  using Publish = std::function<void(const Snapshot &)>;
  DocumentWorker(std::string path, PreambleCache &preambles, Stats &stats, Publish publish)
      : path_(std::move(path)), preambles_(preambles), stats_(stats), publish_(std::move(publish)),
        // Clang recurses deeply on nested expressions: give it clangd's 8 MiB.
        thread_(std::optional<unsigned>(8u << 20), [this] { loop(); }) {}
  ~DocumentWorker() {
    stop();
    if (thread_.joinable()) thread_.join();
  }

  /// Queues an analysis of `version`. Only the newest analysis is kept: a
  /// queued older one is replaced in place (requests queued after it then
  /// see the newer version) and a running one is cancelled.
  void analyze(int64_t version, std::string text, FlagOptions flags) {
    Task t;
    t.kind = Task::Kind::Analyze;
    t.version = version;
    t.text = std::move(text);
    t.flags = std::move(flags);
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) return;
    if (running_ && running_->version < version) running_->cancelled->store(true);
    auto first = std::find_if(queue_.begin(), queue_.end(), [](const Task &q) { return q.kind == Task::Kind::Analyze; });
    if (first == queue_.end()) {
      queue_.push_back(std::move(t));
    } else {
      ++stats_.superseded;
      *first = std::move(t);
      for (auto it = std::next(first); it != queue_.end();)
        if (it->kind == Task::Kind::Analyze) { it = queue_.erase(it); ++stats_.superseded; }
        else ++it;
    }
    cv_.notify_one();
  }

  void request(Task t) {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) {
      t.onCancel();
      return;
    }
    queue_.push_back(std::move(t));
    cv_.notify_one();
  }

  /// Stops publishing and cancels the running analysis; queued requests are
  /// answered RequestCancelled by the worker on its way out.
  void stop() {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    if (running_) running_->cancelled->store(true);
    cv_.notify_one();
  }
  bool finished() const { return finished_.load(); }

private:
  struct Running {
    int64_t version;
    std::shared_ptr<std::atomic<bool>> cancelled;
  };

  void loop() {
    for (;;) {
      Task t;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) break;
        t = std::move(queue_.front());
        queue_.pop_front();
        if (t.kind == Task::Kind::Analyze) running_ = Running{t.version, t.cancelled};
      }
      if (t.kind == Task::Kind::Analyze) {
        std::shared_ptr<const Snapshot> snap = analyzeNow(t);
        std::lock_guard<std::mutex> l(mu_);
        running_.reset();
        if (!snap || stopping_) continue;
        latest_ = snap;
        bool superseded = std::any_of(queue_.begin(), queue_.end(), [](const Task &q) { return q.kind == Task::Kind::Analyze; });
        // Published under the lock so that didClose's empty diagnostics
        // can never overtake these.
        if (!superseded) publish_(*snap);
        continue;
      }
      if (t.cancelled->load()) {
        t.onCancel();
        continue;
      }
      std::shared_ptr<const Snapshot> snap;
      {
        std::lock_guard<std::mutex> l(mu_);
        snap = latest_;
      }
      t.run(snap.get());
    }
    std::deque<Task> left;
    {
      std::lock_guard<std::mutex> l(mu_);
      left.swap(queue_);
    }
    for (Task &t : left)
      if (t.kind == Task::Kind::Request) t.onCancel();
    finished_ = true;
  }

  std::shared_ptr<const Snapshot> analyzeNow(Task &t) {
    auto snap = std::make_shared<Snapshot>();
    snap->version = t.version;
    snap->text = t.text;
    if (auto configPath = findConfigFor(path_)) {
      auto config = loadConfig(*configPath);
      if (config) snap->config = std::move(*config);
      else snap->configError = llvm::toString(config.takeError());
    }
    AnalysisOptions opts;
    opts.flags = t.flags;
    opts.contents = std::move(t.text);
    opts.cancelled = t.cancelled.get();
    auto tu = analyzeFile(path_, opts, &preambles_);
    if (t.cancelled->load()) {
      if (!tu) llvm::consumeError(tu.takeError());
      Logger::info("analysis of {0} version {1} cancelled", path_, t.version);
      ++stats_.cancelled;
      return nullptr;
    }
    if (!tu) {
      snap->error = llvm::toString(tu.takeError());
    } else {
      snap->tu = std::move(*tu);
      snap->findings = runRules(*snap->tu, snap->config);
    }
    ++stats_.analyses;
    return snap;
  }

  std::string path_;
  PreambleCache &preambles_;
  Stats &stats_;
  Publish publish_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  std::optional<Running> running_;
  std::shared_ptr<const Snapshot> latest_;
  bool stopping_ = false;
  std::atomic<bool> finished_{false};
  llvm::thread thread_; // last: started once everything above exists
};

struct OpenDocument {
  proto::URIForFile uri;
  std::string text;
  int64_t version = 0;
  /// An edit could not be applied: the text no longer matches the client's,
  /// so nothing is answered until a full-text change or a reopen.
  bool outOfSync = false;
  std::unique_ptr<DocumentWorker> worker;
};

// ---- the server ------------------------------------------------------------

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
  void onInitialize(const InitializeParams &p, Callback<Value> reply) {
    if (initialized_) return reply(lspError(ErrorCode::InvalidRequest, "initialize was already called"));
    if (p.settings) applySettings(*p.settings);
    resolveEdits_ = p.codeActionResolvesEdit;
    documentChanges_ = p.documentChanges;
    initialized_ = true;
    reply(Value(Object{{"capabilities", serverCapabilities()},
                       {"serverInfo", Object{{"name", "nestor"}, {"version", NESTOR_VERSION}}}}));
  }
  void onInitialized(const proto::NoParams &) {}
  void onShutdown(const proto::NoParams &, Callback<Value> reply) {
    if (!initialized_) return reply(lspError(ErrorCode::ServerNotInitialized, "shutdown before initialize"));
    shutdown_ = true;
    for (auto &[_, d] : docs_)
      if (d->worker) d->worker->stop();
    stopProfileRuns();
    reply(Value(nullptr));
  }
  void onIgnored(const RawParams &) {}
  /// Nestor's own request: counters that let tests check preamble reuse
  /// and dropped edits.
  void onServerStatus(const proto::NoParams &, Callback<Value> reply) {
    if (!ready(reply)) return;
    reply(Value(Object{{"openDocuments", int64_t(docs_.size())},
                       {"preambleBuilds", int64_t(preambles_.builds())},
                       {"preamblesCached", int64_t(preambles_.size())},
                       {"analyses", int64_t(stats_.analyses.load())},
                       {"cancelledAnalyses", int64_t(stats_.cancelled.load())},
                       {"supersededAnalyses", int64_t(stats_.superseded.load())},
                       {"workspaceTrusted", settings_.workspaceTrusted},
                       {"gpuArch", flags_.gpuArch}}));
  }
  void onParseError(const RawParams &p, Callback<Value> reply) { reply(lspError(ErrorCode::ParseError, messageOf(p))); }
  void onInvalidRequest(const RawParams &p, Callback<Value> reply) {
    reply(lspError(ErrorCode::InvalidRequest, messageOf(p)));
  }
  static std::string messageOf(const RawParams &p) {
    const Object *o = p.value.getAsObject();
    auto m = o ? o->getString("message") : std::nullopt;
    return m ? m->str() : "invalid message";
  }

  /// Requests need an initialised server that has not been shut down.
  bool ready(Callback<Value> &reply) {
    if (!initialized_) { reply(lspError(ErrorCode::ServerNotInitialized, "the server has not been initialized")); return false; }
    if (shutdown_) { reply(lspError(ErrorCode::InvalidRequest, "the server is shutting down")); return false; }
    return true;
  }
  bool readyForNotification(llvm::StringRef method) {
    if (initialized_ && !shutdown_) return true;
    Logger::error("{0} ignored: the server is {1}", method, initialized_ ? "shutting down" : "not initialized");
    return false;
  }

  void applySettings(const NestorSettings &s) {
    settings_ = s;
    flags_.compileCommandsDir = s.compileCommandsDir;
    flags_.gpuArch = s.gpuArch;
  }

  void log(proto::MessageType type, const std::string &message) {
    Logger::error("{0}", message);
    logMessage_(Value(Object{{"type", int(type)}, {"message", message}}));
  }

  // -- documents --
  OpenDocument *find(const proto::URIForFile &uri) {
    auto it = docs_.find(uri.file().str());
    return it == docs_.end() ? nullptr : it->second.get();
  }
  /// The open, in-sync document of a request, or an error reply.
  OpenDocument *documentFor(const proto::URIForFile &uri, Callback<Value> &reply) {
    OpenDocument *d = find(uri);
    if (!d) { reply(lspError(ErrorCode::InvalidParams, "document not open: " + uri.uri())); return nullptr; }
    if (d->outOfSync) {
      reply(lspError(ErrorCode::ContentModified, "the server's copy of " + uri.uri() +
                                                     " is out of sync after a bad edit; reopen the file"));
      return nullptr;
    }
    return d;
  }

  void publish(const proto::URIForFile &uri, const Snapshot &s) {
    Array diags;
    for (const Diagnostic &d : diagnosticsFor(s, uri)) diags.push_back(toJSON(d));
    publishDiagnostics_(Value(Object{{"uri", uri.uri().str()}, {"version", s.version}, {"diagnostics", std::move(diags)}}));
  }
  void clearDiagnostics(const proto::URIForFile &uri) {
    publishDiagnostics_(Value(Object{{"uri", uri.uri().str()}, {"diagnostics", Array{}}}));
  }

  void onDidOpen(const proto::DidOpenTextDocumentParams &p) {
    if (!readyForNotification("textDocument/didOpen")) return;
    reapClosed();
    const proto::URIForFile &uri = p.textDocument.uri;
    if (OpenDocument *old = find(uri)) retire(*old);
    auto d = std::make_unique<OpenDocument>();
    d->uri = uri;
    d->text = p.textDocument.text;
    d->version = p.textDocument.version;
    d->worker = makeWorker(uri);
    d->worker->analyze(d->version, d->text, flags_);
    docs_[uri.file().str()] = std::move(d);
  }

  void onDidChange(const proto::DidChangeTextDocumentParams &p) {
    if (!readyForNotification("textDocument/didChange")) return;
    OpenDocument *d = find(p.textDocument.uri);
    if (!d) return log(proto::MessageType::Error, ("didChange for a document that is not open: " + p.textDocument.uri.uri()).str());
    if (p.textDocument.version <= d->version)
      return log(proto::MessageType::Warning,
                 llvm::formatv("didChange for {0}: version {1} is not newer than {2}; ignored", p.textDocument.uri.uri(),
                               p.textDocument.version, d->version));
    // A document out of sync is only repaired by a change of the whole text.
    size_t from = 0;
    if (d->outOfSync) {
      auto full = std::find_if(p.contentChanges.rbegin(), p.contentChanges.rend(), [](const auto &c) { return !c.range; });
      if (full == p.contentChanges.rend()) { d->version = p.textDocument.version; return; }
      from = size_t(p.contentChanges.rend() - full) - 1;
    }
    std::string text = d->text;
    if (llvm::Error err = applyChanges(text, llvm::ArrayRef(p.contentChanges).drop_front(from))) {
      d->outOfSync = true;
      d->version = p.textDocument.version;
      retire(*d);
      std::string msg = llvm::formatv("Nestor: an edit of {0} (version {1}) could not be applied: {2}. Reopen the file "
                                      "to resume analysis.", p.textDocument.uri.uri(), p.textDocument.version,
                                      llvm::toString(std::move(err)));
      log(proto::MessageType::Error, msg);
      showMessage_(Value(Object{{"type", int(proto::MessageType::Error)}, {"message", msg}}));
      return;
    }
    d->text = std::move(text);
    d->version = p.textDocument.version;
    if (d->outOfSync) {
      d->outOfSync = false;
      d->worker = makeWorker(d->uri);
    }
    d->worker->analyze(d->version, d->text, flags_);
  }

  void onDidClose(const proto::DidCloseTextDocumentParams &p) {
    if (!readyForNotification("textDocument/didClose")) return;
    auto it = docs_.find(p.textDocument.uri.file().str());
    if (it == docs_.end()) return log(proto::MessageType::Warning, ("didClose for a document that is not open: " + p.textDocument.uri.uri()).str());
    retire(*it->second);
    preambles_.forget(p.textDocument.uri.file().str());
    docs_.erase(it);
    reapClosed();
  }

  std::unique_ptr<DocumentWorker> makeWorker(const proto::URIForFile &uri) {
    return std::make_unique<DocumentWorker>(uri.file().str(), preambles_, stats_,
                                            [this, uri](const Snapshot &s) { publish(uri, s); });
  }

  /// Stops a document's worker without waiting for it (its analysis may
  /// take a moment to notice the cancellation) and clears its diagnostics.
  void retire(OpenDocument &d) {
    if (!d.worker) return;
    d.worker->stop();
    closed_.push_back(std::move(d.worker));
    clearDiagnostics(d.uri);
  }
  void reapClosed() {
    closed_.erase(std::remove_if(closed_.begin(), closed_.end(), [](const auto &w) { return w->finished(); }), closed_.end());
  }

  void onDidChangeConfiguration(const DidChangeConfigurationParams &p) {
    if (!readyForNotification("workspace/didChangeConfiguration")) return;
    if (!p.settings) return;
    applySettings(*p.settings);
    Logger::info("configuration changed: {0}", toJSON(settings_));
    // Flags may have changed: analyse every open document again.
    for (auto &[_, d] : docs_)
      if (!d->outOfSync && d->worker) d->worker->analyze(d->version, d->text, flags_);
  }

  // -- cancellation --
  std::shared_ptr<std::atomic<bool>> registerRequest(const std::string &key) {
    auto flag = std::make_shared<std::atomic<bool>>(false);
    if (key.empty()) return flag;
    std::lock_guard<std::mutex> l(cancelMu_);
    pending_[key] = flag;
    return flag;
  }
  void forgetRequest(const std::string &key) {
    std::lock_guard<std::mutex> l(cancelMu_);
    pending_.erase(key);
  }
  void onCancelRequest(const CancelParams &p) {
    std::lock_guard<std::mutex> l(cancelMu_);
    auto it = pending_.find(idKey(p.id));
    if (it != pending_.end()) it->second->store(true);
  }
  void onProgressCancel(const WorkDoneProgressCancelParams &p) {
    std::lock_guard<std::mutex> l(cancelMu_);
    auto it = progressTokens_.find(idKey(p.token));
    if (it != progressTokens_.end()) it->second->store(true);
  }

  /// Runs `fn` on the document's worker, on its newest analysis; answers
  /// RequestCancelled if $/cancelRequest (or a closed document) comes first.
  void enqueue(OpenDocument &d, Callback<Value> reply,
               llvm::unique_function<llvm::Expected<Value>(const Snapshot &)> fn,
               std::shared_ptr<std::atomic<bool>> cancelled = nullptr, llvm::unique_function<void()> onDone = nullptr) {
    std::string key = input_.lastId() ? idKey(*input_.lastId()) : "";
    auto flag = registerRequest(key);
    if (cancelled) {
      // The caller's flag (a progress token) and $/cancelRequest both count.
      std::lock_guard<std::mutex> l(cancelMu_);
      if (!key.empty()) pending_[key] = cancelled;
      flag = cancelled;
    }
    auto shared = std::make_shared<Callback<Value>>(std::move(reply));
    auto done = std::make_shared<llvm::unique_function<void()>>(std::move(onDone));
    Task t;
    t.kind = Task::Kind::Request;
    t.cancelled = flag;
    t.run = [this, key, shared, done, fn = std::move(fn)](const Snapshot *s) mutable {
      forgetRequest(key);
      if (!s) (*shared)(lspError(ErrorCode::ContentModified, "the document has not been analysed yet"));
      else (*shared)(fn(*s));
      if (*done) (*done)();
    };
    t.onCancel = [this, key, shared, done] {
      forgetRequest(key);
      (*shared)(lspError(ErrorCode::RequestCancelled, "request cancelled"));
      if (*done) (*done)();
    };
    d.worker->request(std::move(t));
  }

  // -- features --
  void onHover(const proto::TextDocumentPositionParams &p, Callback<Value> reply) {
    if (!ready(reply)) return;
    OpenDocument *d = documentFor(p.textDocument.uri, reply);
    if (!d) return;
    if (auto off = offsetAt(d->text, p.position); !off) return reply(off.takeError());
    proto::Position pos = p.position;
    enqueue(*d, std::move(reply), [pos](const Snapshot &s) -> llvm::Expected<Value> {
      auto off = offsetAt(s.text, pos, /*clampColumn=*/true);
      if (!off) return off.takeError();
      proto::Range range;
      auto md = hoverAt(s, *off, range);
      if (!md) return Value(nullptr);
      return Value(Object{{"contents", Object{{"kind", "markdown"}, {"value", *md}}}, {"range", proto::toJSON(range)}});
    });
  }

  void onCompletion(const proto::CompletionParams &p, Callback<Value> reply) {
    if (!ready(reply)) return;
    OpenDocument *d = documentFor(p.textDocument.uri, reply);
    if (!d) return;
    auto off = offsetAt(d->text, p.position);
    if (!off) return reply(off.takeError());
    // Needs only the text: answered at once, without waiting for analysis.
    auto lineStart = offsetAt(d->text, proto::Position(p.position.line, 0));
    if (!lineStart) return reply(lineStart.takeError());
    auto items = pragmaCompletions(llvm::StringRef(d->text).slice(*lineStart, *off));
    reply(Value(Object{{"isIncomplete", false}, {"items", items ? std::move(*items) : Array{}}}));
  }

  void onCodeAction(const proto::CodeActionParams &p, Callback<Value> reply) {
    if (!ready(reply)) return;
    OpenDocument *d = documentFor(p.textDocument.uri, reply);
    if (!d) return;
    for (const proto::Position &pos : {p.range.start, p.range.end})
      if (auto off = offsetAt(d->text, pos, /*clampColumn=*/true); !off) return reply(off.takeError());
    CodeActionRequest req;
    req.uri = p.textDocument.uri;
    req.only = p.context.only;
    req.resolveEdits = resolveEdits_;
    req.documentChanges = documentChanges_;
    proto::Range range = p.range;
    enqueue(*d, std::move(reply), [req, range](const Snapshot &s) mutable -> llvm::Expected<Value> {
      auto b = offsetAt(s.text, range.start, true), e = offsetAt(s.text, range.end, true);
      if (!b || !e) {
        llvm::consumeError(b.takeError());
        llvm::consumeError(e.takeError());
        return Value(Array{}); // the range vanished in a newer version
      }
      req.begin = *b;
      req.end = std::max(*b, *e);
      return Value(codeActions(s, req));
    });
  }

  void onCodeActionResolve(const RawParams &p, Callback<Value> reply) {
    if (!ready(reply)) return;
    const Object *action = p.value.getAsObject();
    const Object *data = action ? action->getObject("data") : nullptr;
    auto uriText = data ? data->getString("uri") : std::nullopt;
    if (!uriText) return reply(lspError(ErrorCode::InvalidParams, "codeAction/resolve: not an action made by Nestor (no data.uri)"));
    auto uri = proto::URIForFile::fromURI(*uriText);
    if (!uri) return reply(lspError(ErrorCode::InvalidParams, llvm::toString(uri.takeError())));
    OpenDocument *d = documentFor(*uri, reply);
    if (!d) return;
    bool documentChanges = documentChanges_;
    enqueue(*d, std::move(reply), [value = p.value, documentChanges](const Snapshot &s) {
      return resolveCodeAction(s, value, documentChanges);
    });
  }

  void onCodeLens(const CodeLensParams &p, Callback<Value> reply) {
    if (!ready(reply)) return;
    OpenDocument *d = documentFor(p.textDocument.uri, reply);
    if (!d) return;
    proto::URIForFile uri = p.textDocument.uri;
    enqueue(*d, std::move(reply), [uri](const Snapshot &s) -> llvm::Expected<Value> {
      Array out;
      for (const CodeLens &l : codeLenses(s, uri)) out.push_back(toJSON(l));
      return Value(std::move(out));
    });
  }

  void onExecuteCommand(const ExecuteCommandParams &p, Callback<Value> reply) {
    if (!ready(reply)) return;
    if (p.command != kProfileCommand)
      return reply(lspError(ErrorCode::InvalidParams, "unknown command '" + p.command + "' (Nestor runs " + kProfileCommand + ")"));
    auto uriText = p.arguments.size() >= 1 ? p.arguments[0].getAsString() : std::nullopt;
    auto kernel = p.arguments.size() >= 2 ? p.arguments[1].getAsString() : std::nullopt;
    if (!uriText || !kernel)
      return reply(lspError(ErrorCode::InvalidParams, std::string(kProfileCommand) + " takes [documentUri, kernelName]"));
    auto uri = proto::URIForFile::fromURI(*uriText);
    if (!uri) return reply(lspError(ErrorCode::InvalidParams, llvm::toString(uri.takeError())));
    OpenDocument *d = documentFor(*uri, reply);
    if (!d) return;

    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    std::optional<Value> token = p.workDoneToken;
    std::string tokenKey = token ? idKey(*token) : "";
    if (token) {
      std::lock_guard<std::mutex> l(cancelMu_);
      progressTokens_[tokenKey] = cancelled;
    }
    if (token)
      progress_(progressParams(*token, progressBegin("Nestor: profile " + kernel->str(), true, "waiting for the analysis", 0)));
    ProfileJob job;
    job.settings = settings_;
    job.flags = flags_;
    job.kernel = kernel->str();
    job.file = uri->file().str();
    job.token = token;
    job.cancelled = cancelled;
    enqueueDeferred(
        *d, std::move(reply),
        [this, job](const Snapshot &s, Finish finish) mutable { startProfile(s, std::move(job), std::move(finish)); },
        cancelled,
        [this, token, tokenKey] {
          if (!token) return;
          progress_(progressParams(*token, progressEnd("done")));
          std::lock_guard<std::mutex> l(cancelMu_);
          progressTokens_.erase(tokenKey);
        });
  }

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

  void report(const ProfileJob &job, const std::string &message, double fraction) {
    if (job.token) progress_(progressParams(*job.token, progressReport(message, unsigned(std::clamp(fraction, 0.0, 1.0) * 100))));
  }

  void startProfile(const Snapshot &s, ProfileJob job, Finish finish) {
    report(job, "listing the candidate variants", 0.05);
    auto candidates = profileCandidates(s, job.kernel);
    if (!candidates) return finish(candidates.takeError());
    if (job.cancelled->load()) return finish(lspError(ErrorCode::RequestCancelled, "profiling cancelled"));
    const std::string tail = "; nothing was built or run, the candidates below are the variants it would time";
    auto staticAnswer = [&](const std::string &why) {
      return Value(Object{{"error", "profiler not available: " + why + tail},
                          {"kernel", job.kernel},
                          {"file", job.file},
                          {"version", s.version},
                          {"workspaceTrusted", job.settings.workspaceTrusted},
                          {"candidates", std::move(*candidates)}});
    };
    // Building and running the user's code is running commands from the
    // workspace: only in a trusted one.
    if (!job.settings.workspaceTrusted)
      return finish(staticAnswer("the workspace is not trusted, so Nestor runs no build or profile command in it"));
    if (s.configError) return finish(staticAnswer(".nestor.yaml could not be read: " + *s.configError));
    ProfileConfig profile = s.config.profile;
    if (!job.settings.buildCommand.empty()) profile.build = job.settings.buildCommand;
    if (!job.settings.runCommand.empty()) profile.run = job.settings.runCommand;
    if (llvm::Error err = planner::checkProfileConfig(profile, s.config.path, job.file))
      return finish(staticAnswer(llvm::toString(std::move(err)) +
                                 " (nestor.profile.buildCommand and runCommand in the editor's settings override build and run)"));
    profiler::DeviceInventory devices = profiler::detect_devices();
    if (devices.gpus.empty()) return finish(staticAnswer("no CUDA device (" + devices.why_none + ")"));
    std::string why;
    auto runner = planner::findRunner("", why);
    if (!runner) return finish(staticAnswer(why));
    if (!s.tu) return finish(lspError(ErrorCode::RequestFailed, "the file could not be analysed: " + s.error.value_or("unknown error")));

    report(job, "generating the variants", 0.1);
    auto list = planner::listCandidates(*s.tu, s.config, job.kernel);
    if (!list) return finish(lspError(ErrorCode::InvalidParams, llvm::toString(list.takeError())));
    planner::PlanRequest request;
    request.planDir = planner::defaultPlanDir(job.file, job.kernel);
    request.projectDir = !s.config.path.empty() ? llvm::sys::path::parent_path(s.config.path).str()
                                                : llvm::sys::path::parent_path(job.file).str();
    request.runtimeIncludeDir = planner::runtimeIncludeDir();
    request.profile = profile;
    request.configPath = s.config.path;
    request.budget = job.settings.profileBudget;
    request.relativeProjectDir = false;
    request.cancelled = job.cancelled.get();
    size_t total = std::max<size_t>(1, request.budget ? std::min<size_t>(request.budget, list->candidates.size()) : list->candidates.size());
    size_t made = 0;
    request.progress = [&](const std::string &line) { report(job, line, 0.1 + 0.2 * double(made++) / double(total)); };
    AnalysisOptions opts;
    opts.flags = job.flags;
    opts.cancelled = job.cancelled.get();
    auto plan = planner::writePlan(*s.tu, opts, *list, request);
    if (job.cancelled->load()) {
      if (!plan) llvm::consumeError(plan.takeError());
      return finish(lspError(ErrorCode::RequestCancelled, "profiling cancelled"));
    }
    if (!plan) return finish(staticAnswer("the plan could not be written: " + llvm::toString(plan.takeError())));
    if (plan->kept.empty()) return finish(staticAnswer("no candidate could be generated"));

    planner::RunnerCall call;
    call.runner = *runner;
    call.plan = plan->planPath;
    call.results = (llvm::sys::path::parent_path(plan->planPath) + "/results.json").str();
    std::vector<std::string> ids{"baseline"};
    for (const planner::Candidate &c : plan->kept) ids.push_back(c.id);
    Object extra{{"file", job.file}, {"version", s.version}, {"planDir", llvm::sys::path::parent_path(plan->planPath).str()}};
    Array dropped;
    for (const auto &[c, reason] : plan->dropped) dropped.push_back(Object{{"id", c.id}, {"reason", reason}});
    extra["notGenerated"] = std::move(dropped);
    extra["notTried"] = int64_t(plan->notTried);
    Value fallback = staticAnswer("nestor-runner found no CUDA device");
    report(job, "building and timing " + std::to_string(ids.size()) + " variants", 0.3);

    std::lock_guard<std::mutex> l(profileMu_);
    if (profileStopping_) return finish(lspError(ErrorCode::RequestCancelled, "the server is shutting down"));
    profileRuns_.push_back(job.cancelled);
    profileThreads_.emplace_back([this, job, call, ids, extra = std::move(extra), fallback = std::move(fallback),
                                  finish = std::move(finish)]() mutable {
      planner::RunnerProgress tracker(ids);
      planner::RunnerExit exit = planner::runRunner(
          call,
          [&](const std::string &line) {
            if (tracker.feed(line)) report(job, tracker.lastEvent(), 0.3 + 0.7 * tracker.fraction());
          },
          job.cancelled.get());
      if (exit.cancelled) return finish(lspError(ErrorCode::RequestCancelled, "profiling cancelled; nestor-runner was stopped"));
      if (!exit.error.empty()) return finish(lspError(ErrorCode::RequestFailed, exit.error + "\n" + exit.stderrTail));
      if (exit.exitCode == 3) return finish(std::move(fallback));
      if (exit.exitCode != 0)
        return finish(lspError(ErrorCode::RequestFailed, "nestor-runner failed (exit " + std::to_string(exit.exitCode) +
                                                             "): " + exit.stderrTail));
      auto results = planner::readResults(call.results);
      if (!results) return finish(lspError(ErrorCode::RequestFailed, llvm::toString(results.takeError())));
      auto parsed = llvm::json::parse(planner::editorReport(*results, job.kernel).dump());
      if (!parsed) return finish(parsed.takeError());
      Object *o = parsed->getAsObject();
      for (auto &[k, v] : extra) (*o)[k] = v;
      finish(std::move(*parsed));
    });
  }

  /// Cancels the running profiles and waits for their threads (each kills
  /// its nestor-runner and answers RequestCancelled).
  void stopProfileRuns() {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> l(profileMu_);
      profileStopping_ = true;
      for (auto &flag : profileRuns_) flag->store(true);
      threads.swap(profileThreads_);
    }
    for (std::thread &t : threads)
      if (t.joinable()) t.join();
  }

  /// Like enqueue(), for a request that may be answered later from another
  /// thread: `fn` gets `finish`, to be called exactly once.
  void enqueueDeferred(OpenDocument &d, Callback<Value> reply, llvm::unique_function<void(const Snapshot &, Finish)> fn,
                       std::shared_ptr<std::atomic<bool>> cancelled, llvm::unique_function<void()> onDone) {
    std::string key = input_.lastId() ? idKey(*input_.lastId()) : "";
    if (!key.empty()) {
      std::lock_guard<std::mutex> l(cancelMu_);
      pending_[key] = cancelled;
    }
    auto shared = std::make_shared<Callback<Value>>(std::move(reply));
    auto done = std::make_shared<llvm::unique_function<void()>>(std::move(onDone));
    Finish finish = [this, key, shared, done](llvm::Expected<Value> result) {
      forgetRequest(key);
      (*shared)(std::move(result));
      if (*done) (*done)();
    };
    Task t;
    t.kind = Task::Kind::Request;
    t.cancelled = cancelled;
    t.run = [finish, fn = std::move(fn)](const Snapshot *s) mutable {
      if (!s) return finish(lspError(ErrorCode::ContentModified, "the document has not been analysed yet"));
      fn(*s, finish);
    };
    t.onCancel = [finish] { finish(lspError(ErrorCode::RequestCancelled, "request cancelled")); };
    d.worker->request(std::move(t));
  }

  CheckedInput &input_;
  FlagOptions flags_;
  NestorSettings settings_;
  bool initialized_ = false, shutdown_ = false;
  bool resolveEdits_ = false, documentChanges_ = false;
  PreambleCache preambles_;
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

} // namespace

int runServer(std::FILE *in, llvm::raw_ostream &out, const ServerOptions &opts) {
  // A client that goes away must end the server through end-of-input, not
  // kill it with SIGPIPE in the middle of a write.
  std::signal(SIGPIPE, SIG_IGN);
  Logger::Level level = Logger::Level::Error;
  if (auto env = llvm::sys::Process::GetEnv("NESTOR_LSP_LOG")) {
    if (*env == "debug") level = Logger::Level::Debug;
    else if (*env == "info") level = Logger::Level::Info;
  }
  Logger::setLogLevel(level);

  auto input = std::make_unique<CheckedInput>(in);
  CheckedInput &checked = *input;
  proto::JSONTransport transport(std::move(input), out);
  proto::MessageHandler handler(transport);
  int rc;
  {
    Server server(handler, checked, opts);
    if (llvm::Error err = transport.run(handler)) {
      // End of input without `exit`: the client went away.
      Logger::info("input ended: {0}", llvm::toString(std::move(err)));
    }
    rc = server.shutdownReceived() ? 0 : 1;
  } // joins the document workers before the transport goes away
  return rc;
}

} // namespace nestor::lsp
