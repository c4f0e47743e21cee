// Crash recovery around an analysis (nestor/CrashRecovery.h).
#include "nestor/CrashRecovery.h"

#include "llvm/Support/CrashRecoveryContext.h"

#include <csignal>
#include <cstdlib>
#include <cstring>

namespace nestor {

namespace {

struct Breadcrumb {
  std::string phase;
  std::string function;
  SourceSpan where;
};

Breadcrumb &current() {
  thread_local Breadcrumb b;
  return b;
}

const char *signalName(int sig) {
  switch (sig) {
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGFPE: return "SIGFPE";
  case SIGILL: return "SIGILL";
  case SIGABRT: return "SIGABRT";
  case SIGTRAP: return "SIGTRAP";
  default: return nullptr;
  }
}

} // namespace

std::string InternalError::describe() const {
  std::string s = "analysis failed (internal error";
  if (const char *name = signalName(signal)) s += std::string(": ") + name;
  else if (signal) s += ": signal " + std::to_string(signal);
  s += ")";
  if (!phase.empty()) s += " while " + phase;
  if (!function.empty()) s += " of '" + function + "'";
  if (where.valid()) s += " at line " + std::to_string(where.begin.line);
  s += "; this file's findings are lost (please report it with the file)";
  return s;
}

void enableCrashRecovery() { llvm::CrashRecoveryContext::Enable(); }

std::optional<InternalError> runRecoveringCrashes(llvm::function_ref<void()> fn) {
  Breadcrumb saved = current();
  llvm::CrashRecoveryContext crc;
  if (crc.RunSafely(fn)) return std::nullopt;
  InternalError e;
  // On Unix the context's RetCode is 128 + the signal's number.
  e.signal = crc.RetCode > 128 ? crc.RetCode - 128 : 0;
  e.phase = current().phase;
  e.function = current().function;
  e.where = current().where;
  current() = std::move(saved); // the crashed steps never restored theirs
  return e;
}

AnalysisStep::AnalysisStep(const char *phase, std::string function, SourceSpan where) {
  Breadcrumb &b = current();
  savedPhase_ = std::move(b.phase);
  savedFunction_ = std::move(b.function);
  savedWhere_ = std::move(b.where);
  b.phase = phase;
  b.function = std::move(function);
  b.where = std::move(where);
}

AnalysisStep::~AnalysisStep() {
  Breadcrumb &b = current();
  b.phase = std::move(savedPhase_);
  b.function = std::move(savedFunction_);
  b.where = std::move(savedWhere_);
}

const char *testOnlyCrashMarker() {
  static const char *marker = [] {
    const char *m = std::getenv("NESTOR_TEST_ONLY_CRASH_ON_MARKER");
    return m && *m ? m : nullptr;
  }();
  return marker;
}

void crashIfTestMarker(llvm::StringRef text) {
  const char *marker = testOnlyCrashMarker();
  if (!marker || !text.contains(marker)) return;
  std::raise(SIGSEGV); // a real signal, as a null dereference would give
}

} // namespace nestor
