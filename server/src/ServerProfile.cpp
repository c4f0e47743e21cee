// `nestor lsp` (Server.h): the `nestor.profile` command behind the "Profile
// variants" code lens: the static candidates, the plan, and nestor-runner on
// a thread of its own, with progress and cancellation.
#include "Server.h"

#include "nestor/planner/Planner.h"
#include "nestor/planner/Runner.h"
#include "nestor/profiler/devices.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace nestor::lsp {

using proto::Logger;

void Server::onExecuteCommand(const ExecuteCommandParams &p, Callback<Value> reply) {
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

void Server::report(const ProfileJob &job, const std::string &message, double fraction) {
  if (job.token) progress_(progressParams(*job.token, progressReport(message, unsigned(std::clamp(fraction, 0.0, 1.0) * 100))));
}

void Server::startProfile(const Snapshot &s, ProfileJob job, Finish finish) {
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

void Server::stopProfileRuns() {
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

void Server::enqueueDeferred(OpenDocument &d, Callback<Value> reply, llvm::unique_function<void(const Snapshot &, Finish)> fn,
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

} // namespace nestor::lsp
