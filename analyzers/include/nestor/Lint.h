// The lint engine: runs every enabled rule over an AnalyzedTU, applies the
// configuration and suppression comments, and formats findings as text,
// JSON or SARIF 2.1.0. Used by `nestor lint` and the LSP server alike.
#pragma once
#include "nestor/Config.h"
#include "nestor/Finding.h"

#include "llvm/Support/JSON.h"

#include <map>
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
  std::string includer;              ///< parsed with this database file's command (a header)
  std::vector<std::string> fingerprints; ///< one per finding, once addFingerprints() ran
};

/// Fills `r.fingerprints`: for each finding, a hash of its rule id, its path
/// relative to `root` and the text of its line with whitespace collapsed,
/// then `:N`, its occurrence among the file's findings with the same hash
/// (0, 1, ...). Moving the code to other lines keeps it; editing the flagged
/// line changes it. The SARIF writer puts it in partialFingerprints
/// ("nestor/v1"), the JSON writer in "fingerprint".
void addFingerprints(FileResult &r, const std::string &root);

/// The fingerprints in a saved Nestor report, SARIF (runs[].results[]
/// .partialFingerprints["nestor/v1"]) or JSON (files[].findings[]
/// .fingerprint), with their multiplicity. Fails with a one-line message for
/// an unreadable file, malformed JSON, or a report without fingerprints.
llvm::Expected<std::map<std::string, unsigned>> loadBaseline(const std::string &path);

/// `file:line:col: warning: message [rule-id]`, GCC style.
std::string formatText(const Finding &f, const std::string &displayPath);
llvm::json::Value toJSON(const Finding &f, const std::string &displayPath);
/// SARIF 2.1.0 log; paths relative to `root` with uriBaseId SRCROOT.
llvm::json::Value toSarif(const std::vector<FileResult> &results, const std::string &root);

/// Nearest enclosing directory with a .git entry, else the current directory.
std::string repositoryRoot(const std::string &from);
std::string relativePath(const std::string &path, const std::string &root);

} // namespace nestor
