// Writing the user's files: one file atomically, and all-or-none writing of a
// rewrite that changes several files (a kernel and the launches of it in
// other translation units of the project). The rewrites only compute edits;
// the CLI writes them.
#pragma once
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace nestor::cli {

/// Writes `contents` to `path` atomically (temporary file in the same
/// directory, then rename, keeping the file's permissions): the file is never
/// left half-written.
llvm::Error writeFileAtomically(const std::string &path, llvm::StringRef contents);

struct FileChange {
  std::string before; ///< the text the rewrite was computed on
  std::string after;
};

/// Writes every file with the atomic single-file writer (temporary file, then
/// rename), all or none: every file is first checked to still hold `before`
/// (nothing is written when one changed since it was analysed) and to be
/// writable; when a write fails, the files already written get their `before`
/// back, the same way, and the error names the file that failed.
llvm::Error writeFilesAllOrNone(const std::map<std::string, FileChange> &changes);

} // namespace nestor::cli
