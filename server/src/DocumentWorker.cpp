// Document scheduling (DocumentWorker.h).
#include "DocumentWorker.h"

#include "nestor/CrashRecovery.h"
#include "nestor/Lint.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace nestor::lsp {

using proto::Logger;

void DocumentWorker::analyze(int64_t version, std::string text, FlagOptions flags) {
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

void DocumentWorker::request(Task t) {
  std::lock_guard<std::mutex> l(mu_);
  if (stopping_) {
    t.onCancel();
    return;
  }
  queue_.push_back(std::move(t));
  cv_.notify_one();
}

void DocumentWorker::stop() {
  std::lock_guard<std::mutex> l(mu_);
  stopping_ = true;
  if (running_) running_->cancelled->store(true);
  cv_.notify_one();
}

void DocumentWorker::loop() {
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
      {
        std::lock_guard<std::mutex> l(mu_);
        running_.reset();
        if (!snap || stopping_) continue;
        latest_ = snap;
        if (newerQueued()) continue;
        // Published under the lock so that didClose's empty diagnostics
        // can never overtake these.
        publish_(*snap);
      }
      // The code actions of this version, for requests answered at once on
      // the server's thread; given up when a newer version arrives.
      // The rewrites' checks run on the AST too: a crash there leaves this
      // version without code actions, not the server gone.
      std::shared_ptr<const ActionIndex> index;
      if (auto crash = runRecoveringCrashes([&] {
            index = buildActionIndex(*snap, uri_, [this] {
              std::lock_guard<std::mutex> l(mu_);
              return stopping_ || newerQueued();
            });
          })) {
        ++stats_.crashes;
        Logger::error("code actions of {0} version {1}: {2}", path_, snap->version, crash->describe());
        index = nullptr;
      }
      if (index) {
        std::lock_guard<std::mutex> l(mu_);
        actions_ = std::move(index);
      }
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
    // A request (hover, code action, rewrite) that crashes is answered
    // RequestCancelled; the document and its analysis stay.
    if (auto crash = runRecoveringCrashes([&] { t.run(snap.get()); })) {
      ++stats_.crashes;
      Logger::error("a request on {0} crashed: {1}", path_, crash->describe());
      if (t.onCancel) t.onCancel();
    }
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

std::shared_ptr<const Snapshot> DocumentWorker::analyzeNow(Task &t) {
  ++stats_.running;
  auto done = llvm::make_scope_exit([this] { --stats_.running; });
  auto snap = std::make_shared<Snapshot>();
  snap->version = t.version;
  snap->text = t.text;
  snap->lines = LineIndex(snap->text);
  if (auto configPath = findConfigFor(path_)) {
    auto config = loadConfig(*configPath);
    if (config) snap->config = std::move(*config);
    else snap->configError = llvm::toString(config.takeError());
  }
  AnalysisOptions opts;
  opts.flags = t.flags;
  opts.contents = std::move(t.text);
  opts.cancelled = t.cancelled.get();
  // Launches of the kernels in the project's other files: what is indexed so
  // far (the index builds in the background; an edit never waits for it).
  opts.project = project_;
  opts.waitForProject = false;
  // Crash recovery (CrashRecovery.h): a crash inside the analysis or the
  // rules becomes one diagnostic at the place being analysed; the document
  // stays open and its next version is analysed again.
  std::optional<llvm::Expected<std::unique_ptr<AnalyzedTU>>> tu;
  std::unique_ptr<AnalyzedTU> analysed;
  std::vector<Finding> findings;
  auto crash = runRecoveringCrashes([&] {
    tu.emplace(analyzeFile(path_, opts, &preambles_));
    if (t.cancelled->load() || !*tu) return;
    analysed = std::move(**tu);
    findings = runRules(*analysed, snap->config);
  });
  if (crash) {
    // What the crashed analysis built is not safe to free: leak it.
    (void)analysed.release();
    ++stats_.crashes;
    snap->error = crash->describe();
    snap->internalError = true;
    llvm::SmallString<256> self(path_);
    llvm::sys::fs::make_absolute(self);
    llvm::sys::path::remove_dots(self, true);
    if (crash->where.file == self.str()) snap->errorAt = crash->where;
    Logger::error("analysis of {0} version {1} crashed: {2}", path_, t.version, *snap->error);
    ++stats_.analyses;
    return snap;
  }
  if (t.cancelled->load()) {
    if (!*tu) llvm::consumeError(tu->takeError());
    Logger::info("analysis of {0} version {1} cancelled", path_, t.version);
    ++stats_.cancelled;
    return nullptr;
  }
  if (!*tu) {
    snap->error = llvm::toString(tu->takeError());
  } else {
    snap->tu = std::move(analysed);
    snap->findings = std::move(findings);
  }
  ++stats_.analyses;
  return snap;
}
} // namespace nestor::lsp
