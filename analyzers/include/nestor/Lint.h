// The lint engine: runs every enabled rule over an AnalyzedTU, applies the
// configuration and suppression comments, and formats findings as text,
// JSON or SARIF 2.1.0. Used by `nestor lint` and the LSP server alike.
#pragma once
#include "nestor/Config.h"
#include "nestor/Finding.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace nestor {

class AnalyzedTU;

/// Findings of all enabled rules, configured severities applied, suppressed
/// ones (`// nestor-ignore(rule-id)` on the line or the line before) removed,
/// sorted by position.
std::vector<Finding> runRules(const AnalyzedTU &tu, const Config &config);

/// True when a `nestor-ignore(...)` comment on the finding's line or the line
/// before names its rule (or `*`).
bool isSuppressed(llvm::StringRef fileText, const Finding &f);

struct FileResult {
  std::string file;                  ///< as given on the command line / absolute
  std::vector<Finding> findings;
  std::optional<std::string> error;  ///< the file could not be analysed
  bool internalError = false;        ///< `error` is a crash the analysis recovered from (CrashRecovery.h)
  std::vector<std::string> droppedFlags;
  bool fallbackHeaders = false;
};

/// `file:line:col: warning: message [rule-id]`, GCC style.
std::string formatText(const Finding &f, const std::string &displayPath);
llvm::json::Value toJSON(const Finding &f, const std::string &displayPath);
/// SARIF 2.1.0 log; paths relative to `root` with uriBaseId SRCROOT.
llvm::json::Value toSarif(const std::vector<FileResult> &results, const std::string &root);

/// Nearest enclosing directory with a .git entry, else the current directory.
std::string repositoryRoot(const std::string &from);
std::string relativePath(const std::string &path, const std::string &root);

} // namespace nestor
