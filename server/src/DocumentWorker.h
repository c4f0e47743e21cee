// Document scheduling for `nestor lsp`: one worker thread per open document
// analyses its newest version (older ones are cancelled or dropped) and runs
// the document's requests in order against the latest analysis.
#pragma once
#include "CodeActions.h"
#include "Document.h"
#include "Features.h"
#include "ProtocolExtras.h"

#include "nestor/Analysis.h"

#include "llvm/ADT/FunctionExtras.h"
#include "llvm/Support/LSP/Protocol.h"
#include "llvm/Support/thread.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace nestor::lsp {

// ---- one worker per document -----------------------------------------------

/// Counters behind the `nestor/serverStatus` request (tests, benchmarks).
struct Stats {
  std::atomic<size_t> analyses{0};        ///< analyses that completed
  std::atomic<size_t> cancelled{0};       ///< analyses abandoned for a newer version
  std::atomic<size_t> superseded{0};      ///< queued analyses dropped before they started
  std::atomic<size_t> running{0};         ///< analyses under way now
  std::atomic<size_t> crashes{0};         ///< analyses that crashed and were recovered from
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
  DocumentWorker(std::string path, proto::URIForFile uri, PreambleCache &preambles, Stats &stats, Publish publish)
      : path_(std::move(path)), uri_(std::move(uri)), preambles_(preambles), stats_(stats), publish_(std::move(publish)),
        // Clang recurses deeply on nested expressions: give it clangd's 8 MiB.
        thread_(std::optional<unsigned>(8u << 20), [this] { loop(); }) {}
  ~DocumentWorker() {
    stop();
    if (thread_.joinable()) thread_.join();
  }

  /// Queues an analysis of `version`. Only the newest analysis is kept: a
  /// queued older one is replaced in place (requests queued after it then
  /// see the newer version) and a running one is cancelled.
  void analyze(int64_t version, std::string text, FlagOptions flags);

  void request(Task t);

  /// The code actions of the newest analysis that got that far (built after
  /// its diagnostics are published); null before the first. Plain data: any
  /// thread may read it.
  std::shared_ptr<const ActionIndex> actions() {
    std::lock_guard<std::mutex> l(mu_);
    return actions_;
  }

  /// Stops publishing and cancels the running analysis; queued requests are
  /// answered RequestCancelled by the worker on its way out.
  void stop();
  bool finished() const { return finished_.load(); }

private:
  struct Running {
    int64_t version;
    std::shared_ptr<std::atomic<bool>> cancelled;
  };

  void loop();
  /// An analysis of a newer version is queued (call with mu_ held).
  bool newerQueued() const {
    return std::any_of(queue_.begin(), queue_.end(), [](const Task &q) { return q.kind == Task::Kind::Analyze; });
  }

  std::shared_ptr<const Snapshot> analyzeNow(Task &t);

  std::string path_;
  proto::URIForFile uri_;
  PreambleCache &preambles_;
  /// The project's launch index (Server::projectFor), or null; set before the first analysis.
  ProjectIndex *project_ = nullptr;

public:
  void setProject(ProjectIndex *p) { project_ = p; }

private:
  Stats &stats_;
  Publish publish_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  std::optional<Running> running_;
  std::shared_ptr<const Snapshot> latest_;
  std::shared_ptr<const ActionIndex> actions_;
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
  /// Line starts of `text`, built on first use for each version.
  const LineIndex &lineIndex() {
    if (linesVersion_ != version || lines_.empty()) {
      lines_ = LineIndex(text);
      linesVersion_ = version;
    }
    return lines_;
  }

private:
  LineIndex lines_;
  int64_t linesVersion_ = -1;
};

} // namespace nestor::lsp
