// Crash recovery around an analysis (issue #20, part 3): a crash inside one
// file's analysis (a SIGSEGV on an AST query that invalid code breaks, an
// abort) becomes an InternalError for that file instead of ending `nestor
// lint` or `nestor lsp`, as clangd does with llvm::CrashRecoveryContext.
//
//   enableCrashRecovery();                       // once, at start-up
//   auto crash = runRecoveringCrashes([&] { tu = analyzeFile(...); ... });
//   if (crash) report(crash->describe());        // "analysis failed (internal error) ..."
//
// Where the analysis was when it crashed comes from AnalysisStep, a
// breadcrumb the model builder and the rule runner set (thread-local, copied
// by value, so it survives the jump out of the crashed frames).
//
// Test-only hook: when the environment variable
// NESTOR_TEST_ONLY_CRASH_ON_MARKER is set to a non-empty string, the model
// builder raises SIGSEGV on every file whose text contains that string
// (crashIfTestMarker). It exists only so that tests can prove the recovery
// (tests/crash/); nothing else sets it.
#pragma once

#include "nestor/Model.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace nestor {

/// What a crash left: the signal, and the step the analysis was in.
struct InternalError {
  int signal = 0;            ///< SIGSEGV, SIGABRT, ...; 0 when unknown
  std::string phase;         ///< "parsing", "building the model", "rule np-local-array", ...
  std::string function;      ///< the function being analysed, if any
  SourceSpan where;          ///< its place (file, line) when known
  /// "analysis failed (internal error: SIGSEGV) while building the model of
  /// 'k' at line 3; this file's findings are lost; please report it"
  std::string describe() const;
};

/// Installs the signal handlers (llvm::CrashRecoveryContext::Enable); call
/// once before any analysis thread starts. Without it a crash is not caught.
void enableCrashRecovery();

/// Runs `fn` on this thread; a crash inside it (SIGSEGV, SIGBUS, SIGFPE,
/// SIGILL, SIGABRT, SIGTRAP) returns the InternalError instead of ending the
/// process. What `fn` allocated before the crash is leaked, like clangd.
std::optional<InternalError> runRecoveringCrashes(llvm::function_ref<void()> fn);

/// Breadcrumb of the analysis: sets the current step for this thread and
/// restores the previous one when it goes out of scope.
class AnalysisStep {
public:
  AnalysisStep(const char *phase, std::string function = {}, SourceSpan where = {});
  ~AnalysisStep();
  AnalysisStep(const AnalysisStep &) = delete;
  AnalysisStep &operator=(const AnalysisStep &) = delete;

private:
  std::string savedPhase_, savedFunction_;
  SourceSpan savedWhere_;
};

/// TEST-ONLY: raises SIGSEGV when NESTOR_TEST_ONLY_CRASH_ON_MARKER is set
/// and non-empty and `text` contains it (see the header comment).
void crashIfTestMarker(llvm::StringRef text);
/// TEST-ONLY: the marker, or null when the hook is off (the usual case).
const char *testOnlyCrashMarker();

} // namespace nestor
