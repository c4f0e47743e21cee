// `nestor lsp` (Server.h): lifecycle, documents, cancellation, the editor
// features, and runServer.
#include "Server.h"

#include "nestor/Lint.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <csignal>

#ifndef NESTOR_VERSION
#define NESTOR_VERSION "0"
#endif

namespace nestor::lsp {

using proto::Logger;

void Server::onInitialize(const InitializeParams &p, Callback<Value> reply) {
  if (initialized_) return reply(lspError(ErrorCode::InvalidRequest, "initialize was already called"));
  if (p.settings) applySettings(*p.settings);
  resolveEdits_ = p.codeActionResolvesEdit;
  documentChanges_ = p.documentChanges;
  initialized_ = true;
  reply(Value(Object{{"capabilities", serverCapabilities()},
                     {"serverInfo", Object{{"name", "nestor"}, {"version", NESTOR_VERSION}}}}));
}

void Server::onShutdown(const proto::NoParams &, Callback<Value> reply) {
  if (!initialized_) return reply(lspError(ErrorCode::ServerNotInitialized, "shutdown before initialize"));
  shutdown_ = true;
  for (auto &[_, d] : docs_)
    if (d->worker) d->worker->stop();
  stopProfileRuns();
  reply(Value(nullptr));
}

void Server::onServerStatus(const proto::NoParams &, Callback<Value> reply) {
  if (!ready(reply)) return;
  reply(Value(Object{{"openDocuments", int64_t(docs_.size())},
                     {"preambleBuilds", int64_t(preambles_.builds())},
                     {"preamblesCached", int64_t(preambles_.size())},
                     {"analyses", int64_t(stats_.analyses.load())},
                     {"cancelledAnalyses", int64_t(stats_.cancelled.load())},
                     {"supersededAnalyses", int64_t(stats_.superseded.load())},
                     {"runningAnalyses", int64_t(stats_.running.load())},
                     {"crashedAnalyses", int64_t(stats_.crashes.load())},
                     {"workspaceTrusted", settings_.workspaceTrusted},
                     {"gpuArch", flags_.gpuArch}}));
}

void Server::onInvalidRequest(const RawParams &p, Callback<Value> reply) {
  reply(lspError(ErrorCode::InvalidRequest, messageOf(p)));
}

std::string Server::messageOf(const RawParams &p) {
  const Object *o = p.value.getAsObject();
  auto m = o ? o->getString("message") : std::nullopt;
  return m ? m->str() : "invalid message";
}

bool Server::ready(Callback<Value> &reply) {
  if (!initialized_) { reply(lspError(ErrorCode::ServerNotInitialized, "the server has not been initialized")); return false; }
  if (shutdown_) { reply(lspError(ErrorCode::InvalidRequest, "the server is shutting down")); return false; }
  return true;
}

bool Server::readyForNotification(llvm::StringRef method) {
  if (initialized_ && !shutdown_) return true;
  Logger::error("{0} ignored: the server is {1}", method, initialized_ ? "shutting down" : "not initialized");
  return false;
}

void Server::applySettings(const NestorSettings &s) {
  settings_ = s;
  flags_.compileCommandsDir = s.compileCommandsDir;
  flags_.gpuArch = s.gpuArch;
}

void Server::log(proto::MessageType type, const std::string &message) {
  Logger::error("{0}", message);
  logMessage_(Value(Object{{"type", int(type)}, {"message", message}}));
}

OpenDocument *Server::find(const proto::URIForFile &uri) {
  auto it = docs_.find(uri.file().str());
  return it == docs_.end() ? nullptr : it->second.get();
}

OpenDocument *Server::documentFor(const proto::URIForFile &uri, Callback<Value> &reply) {
  OpenDocument *d = find(uri);
  if (!d) { reply(lspError(ErrorCode::InvalidParams, "document not open: " + uri.uri())); return nullptr; }
  if (d->outOfSync) {
    reply(lspError(ErrorCode::ContentModified, "the server's copy of " + uri.uri() +
                                                   " is out of sync after a bad edit; reopen the file"));
    return nullptr;
  }
  return d;
}

void Server::publish(const proto::URIForFile &uri, const Snapshot &s) {
  Array diags;
  for (const Diagnostic &d : diagnosticsFor(s, uri)) diags.push_back(toJSON(d));
  publishDiagnostics_(Value(Object{{"uri", uri.uri().str()}, {"version", s.version}, {"diagnostics", std::move(diags)}}));
}

void Server::clearDiagnostics(const proto::URIForFile &uri) {
  publishDiagnostics_(Value(Object{{"uri", uri.uri().str()}, {"diagnostics", Array{}}}));
}

void Server::onDidOpen(const proto::DidOpenTextDocumentParams &p) {
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

void Server::onDidChange(const proto::DidChangeTextDocumentParams &p) {
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
  // The project index keeps this translation unit's launches current (in the
  // background; a newer edit supersedes a queued one).
  if (ProjectIndex *project = projectFor(p.textDocument.uri.file().str()))
    project->update(p.textDocument.uri.file().str(), d->text);
  if (d->outOfSync) {
    d->outOfSync = false;
    d->worker = makeWorker(d->uri);
  }
  d->worker->analyze(d->version, d->text, flags_);
}

void Server::onDidClose(const proto::DidCloseTextDocumentParams &p) {
  if (!readyForNotification("textDocument/didClose")) return;
  auto it = docs_.find(p.textDocument.uri.file().str());
  if (it == docs_.end()) return log(proto::MessageType::Warning, ("didClose for a document that is not open: " + p.textDocument.uri.uri()).str());
  retire(*it->second);
  preambles_.forget(p.textDocument.uri.file().str());
  docs_.erase(it);
  reapClosed();
}

std::unique_ptr<DocumentWorker> Server::makeWorker(const proto::URIForFile &uri) {
  auto w = std::make_unique<DocumentWorker>(uri.file().str(), uri, preambles_, stats_,
                                            [this, uri](const Snapshot &s) { publish(uri, s); });
  w->setProject(projectFor(uri.file().str()));
  return w;
}

ProjectIndex *Server::projectFor(const std::string &) {
  // The database the client names (compileCommandsDir): one found upwards
  // gives the flags, but indexing a whole project is asked for by naming it.
  std::optional<std::string> dir = flags_.compileCommandsDir;
  if (!dir || dir->empty()) return nullptr;
  auto it = projects_.find(*dir);
  if (it == projects_.end()) {
    // One background thread: the index never competes with the documents' analyses for every core.
    auto index = std::make_unique<ProjectIndex>(*dir, flags_, /*threads=*/1);
    if (!index->error().empty()) {
      Logger::info("no project index for {0}: {1}", *dir, index->error());
      index.reset();
    }
    it = projects_.emplace(*dir, std::move(index)).first;
  }
  return it->second.get();
}

void Server::retire(OpenDocument &d) {
  if (!d.worker) return;
  d.worker->stop();
  closed_.push_back(std::move(d.worker));
  clearDiagnostics(d.uri);
}

void Server::reapClosed() {
  closed_.erase(std::remove_if(closed_.begin(), closed_.end(), [](const auto &w) { return w->finished(); }), closed_.end());
}

void Server::onDidChangeConfiguration(const DidChangeConfigurationParams &p) {
  if (!readyForNotification("workspace/didChangeConfiguration")) return;
  if (!p.settings) return;
  applySettings(*p.settings);
  Logger::info("configuration changed: {0}", toJSON(settings_));
  // Flags may have changed: analyse every open document again.
  for (auto &[_, d] : docs_)
    if (!d->outOfSync && d->worker) d->worker->analyze(d->version, d->text, flags_);
}

std::shared_ptr<std::atomic<bool>> Server::registerRequest(const std::string &key) {
  auto flag = std::make_shared<std::atomic<bool>>(false);
  if (key.empty()) return flag;
  std::lock_guard<std::mutex> l(cancelMu_);
  pending_[key] = flag;
  return flag;
}

void Server::forgetRequest(const std::string &key) {
  std::lock_guard<std::mutex> l(cancelMu_);
  pending_.erase(key);
}

void Server::onCancelRequest(const CancelParams &p) {
  std::lock_guard<std::mutex> l(cancelMu_);
  auto it = pending_.find(idKey(p.id));
  if (it != pending_.end()) it->second->store(true);
}

void Server::onProgressCancel(const WorkDoneProgressCancelParams &p) {
  std::lock_guard<std::mutex> l(cancelMu_);
  auto it = progressTokens_.find(idKey(p.token));
  if (it != progressTokens_.end()) it->second->store(true);
}

void Server::enqueue(OpenDocument &d, Callback<Value> reply,
             llvm::unique_function<llvm::Expected<Value>(const Snapshot &)> fn,
             std::shared_ptr<std::atomic<bool>> cancelled, llvm::unique_function<void()> onDone) {
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

void Server::onHover(const proto::TextDocumentPositionParams &p, Callback<Value> reply) {
  if (!ready(reply)) return;
  OpenDocument *d = documentFor(p.textDocument.uri, reply);
  if (!d) return;
  if (auto off = d->lineIndex().offsetAt(d->text, p.position); !off) return reply(off.takeError());
  proto::Position pos = p.position;
  enqueue(*d, std::move(reply), [pos](const Snapshot &s) -> llvm::Expected<Value> {
    auto off = s.lines.offsetAt(s.text, pos, /*clampColumn=*/true);
    if (!off) return off.takeError();
    proto::Range range;
    auto md = hoverAt(s, *off, range);
    if (!md) return Value(nullptr);
    return Value(Object{{"contents", Object{{"kind", "markdown"}, {"value", *md}}}, {"range", proto::toJSON(range)}});
  });
}

void Server::onCompletion(const proto::CompletionParams &p, Callback<Value> reply) {
  if (!ready(reply)) return;
  OpenDocument *d = documentFor(p.textDocument.uri, reply);
  if (!d) return;
  const LineIndex &lines = d->lineIndex();
  auto off = lines.offsetAt(d->text, p.position);
  if (!off) return reply(off.takeError());
  // Needs only the text: answered at once, without waiting for analysis.
  auto lineStart = lines.offsetAt(d->text, proto::Position(p.position.line, 0));
  if (!lineStart) return reply(lineStart.takeError());
  auto items = pragmaCompletions(llvm::StringRef(d->text).slice(*lineStart, *off));
  reply(Value(Object{{"isIncomplete", false}, {"items", items ? std::move(*items) : Array{}}}));
}

void Server::onCodeAction(const proto::CodeActionParams &p, Callback<Value> reply) {
  if (!ready(reply)) return;
  OpenDocument *d = documentFor(p.textDocument.uri, reply);
  if (!d) return;
  const LineIndex &lines = d->lineIndex();
  auto begin = lines.offsetAt(d->text, p.range.start, /*clampColumn=*/true);
  if (!begin) return reply(begin.takeError());
  auto end = lines.offsetAt(d->text, p.range.end, /*clampColumn=*/true);
  if (!end) return reply(end.takeError());
  CodeActionRequest req;
  req.uri = p.textDocument.uri;
  req.only = p.context.only;
  req.resolveEdits = resolveEdits_;
  req.documentChanges = documentChanges_;
  req.begin = *begin;
  req.end = std::max(*begin, *end);
  // At once, from the newest analysis' actions, when the edits since then
  // left this range and its actions' text alone (edits are resolved later,
  // on the current analysis). Clients that cannot resolve need the edits in
  // the answer, computed on the worker.
  if (resolveEdits_)
    if (auto index = d->worker->actions()) {
      DocumentNow now{d->version, d->text, &lines};
      if (auto actions = codeActions(*index, req, now)) return reply(Value(std::move(*actions)));
      // The edits touched what was asked about: answer from the older index
      // around the edit at once (rewrite titles, untouched quick fixes; each
      // edit comes from resolve on the current analysis, which checks the
      // rewrite still applies). Waiting, even a few milliseconds, costs more
      // than it saves on a loaded machine, and VS Code asks again when the
      // new diagnostics arrive.
      return reply(Value(codeActionsAroundEdit(*index, req, now)));
    }
  // Otherwise after the analysis of this text.
  proto::Range range = p.range;
  DocumentWorker *worker = d->worker.get(); // the task runs on its thread
  enqueue(*d, std::move(reply), [req, range, worker](const Snapshot &s) mutable -> llvm::Expected<Value> {
    auto b = s.lines.offsetAt(s.text, range.start, true), e = s.lines.offsetAt(s.text, range.end, true);
    if (!b || !e) {
      llvm::consumeError(b.takeError());
      llvm::consumeError(e.takeError());
      return Value(Array{}); // the range vanished in a newer version
    }
    req.begin = *b;
    req.end = std::max(*b, *e);
    auto index = worker->actions();
    return Value(codeActions(s, req, index.get()));
  });
}

void Server::onCodeActionResolve(const RawParams &p, Callback<Value> reply) {
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

void Server::onCodeLens(const CodeLensParams &p, Callback<Value> reply) {
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
