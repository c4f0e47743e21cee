// Running nestor-runner from `nestor profile` and the LSP server: finding the
// executable, following its progress lines, cancelling it, reading its
// results back, and the report shapes the front ends show.
#pragma once
#include "nestor/planner/Planner.h"
#include "nestor/profiler/results.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nestor::planner {

/// nestor-runner: `explicitPath` if given, else $NESTOR_RUNNER, next to the
/// running binary, the build tree this was built in, then PATH. nullopt when
/// none is executable; `why` then lists what was tried.
std::optional<std::string> findRunner(const std::string &explicitPath, std::string &why);

/// Turns the runner's progress lines ([build] / [run] / [time] / [cache]
/// events, docs/profiler.md) into a fraction done: each variant counts one
/// step for its build and one for its measurement (or failure).
class RunnerProgress {
public:
  explicit RunnerProgress(std::vector<std::string> variantIds);
  /// Returns true when the line was an event about a known variant.
  bool feed(const std::string &line);
  double fraction() const;
  const std::string &lastEvent() const { return last_; }
  size_t finished() const { return finished_.size(); }
  size_t total() const { return ids_.size(); }

private:
  std::vector<std::string> ids_;
  std::vector<std::string> built_, finished_;
  std::string last_;
};

struct RunnerCall {
  std::string runner;
  std::string plan;
  std::string results;               ///< -o
  std::vector<std::string> reports;  ///< --report (.json/.md/.svg)
  std::optional<std::string> cache;  ///< --cache; default <plan dir>/.nestor-runner-cache.jsonl
  bool fresh = false;
};

struct RunnerExit {
  int exitCode = -1;          ///< the runner's: 0 ok, 1 error, 2 bad plan, 3 no device
  bool cancelled = false;     ///< stopped through `cancelled`: the runner and its children were killed
  std::string stderrTail;     ///< last lines of its stderr (for error messages)
  std::string error;          ///< could not be started, killed by a signal, ...
};

/// Runs the runner and waits. Each stderr line goes to `onLine`. When
/// `cancelled` becomes true the runner is stopped, the process groups of the
/// builds and runs it started are killed (the runner puts each in its own
/// group), then the runner itself; its scratch copies live in a temporary
/// directory made for this call (TMPDIR), removed afterwards in every case.
RunnerExit runRunner(const RunnerCall &call, const std::function<void(const std::string &)> &onLine,
                     const std::atomic<bool> *cancelled);

/// Reads a runner's RESULTS.json; errors name the file and field.
llvm::Expected<profiler::Results> readResults(const std::string &path);

/// The candidate a result belongs to (its params carry the chain, target and
/// the `nestor rewrite` command line); nullptr for the baseline.
std::optional<std::string> rewriteCommandOf(const profiler::Results &results, const std::string &variantId);

/// Text printed by `nestor profile` after a run or for --results: the
/// Markdown table, then how to apply the recommended variant.
std::string renderForTerminal(const profiler::Results &results);

/// The report shape the VS Code extension renders (docs/vscode.md):
/// {kernel, device, variants:[{name,status,reason,baseline,median_ms,iqr_ms,samples,stop_reason,stop_detail}],
///  recommendation:{variant,reason}|null}, plus `results` (the runner's
/// document), `markdown`, `decision`, `criterion` and `apply` (the rewrite
/// command of the recommended variant).
nlohmann::json editorReport(const profiler::Results &results, const std::string &kernel);

} // namespace nestor::planner
