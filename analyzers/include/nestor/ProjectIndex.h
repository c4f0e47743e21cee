// The project: a compile database's translation units, which kernel each one
// launches from the host, and which file includes which (issue #21, "projects,
// not files").
//
//   ProjectIndex index(dbDir, flags);        // indexes every TU in the background
//   for (const IndexedLaunch &l : index.hostLaunchesOf(usr)) ...   // waits for the first build
//   const AnalyzedTU *b = index.unit(l.file);  // the launching TU's AST, for a rewrite's edits
//   index.update(file, unsavedText);           // the editor changed a file: re-index it
//
// Built as clangd's background index is: every translation unit of the
// database is analysed on an llvm::ThreadPool, its host launches are recorded
// keyed by the launched kernel's USR (clang's unified symbol resolution: the
// same kernel has the same USR in every TU that declares it), and each TU's
// entry is kept with the hash of its text and command, so a TU is analysed
// again only when its text or command changed. Entries are also kept on disk
// (DIR/.nestor-index/, one JSON file per TU), so the next run starts from them.
//
// The includer of a file with no database entry (a header, or a .cu that a
// wrapper #includes, as Rodinia does) is found by reading the #include lines
// of the database's files against each command's include directories:
// includerInDatabase(), which compileCommandFor() consults for every analysis
// (lint, analyze, rewrite, the language server), so such a file is always
// parsed in its includer's context.
#pragma once
#include "nestor/Analysis.h"
#include "nestor/CompileFlags.h"
#include "nestor/Model.h"

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class ThreadPoolInterface;
}

namespace nestor {

/// A host-side `k<<<...>>>(...)` somewhere in the project.
struct IndexedLaunch {
  std::string file;       ///< the translation unit that launches (absolute)
  std::string kernel;     ///< the launched kernel's name
  std::string kernelUsr;  ///< its USR (the key)
  LaunchSite site;        ///< the launch as that TU's model has it (ids are that TU's)
};

/// The USR a kernel is indexed under: its canonical declaration's (a
/// template's primary template's). Empty for a kernel with internal linkage
/// (static, anonymous namespace): no other TU can launch it.
std::string kernelIndexKey(const clang::FunctionDecl *fd);

/// The database file (absolute) that includes `file` directly or through
/// other project files, in the database's order; "" when `file` has its own
/// entry or no database file includes it. Cached per database (re-read when
/// compile_commands.json changes); thread-safe.
std::string includerInDatabase(const std::string &dbDir, const std::string &file, const FlagOptions &flags);

/// header -> its includer, for every file the database's files include.
std::map<std::string, std::string> includersInDatabase(const std::string &dbDir, const FlagOptions &flags);

class ProjectIndex {
public:
  /// Starts indexing every CUDA translation unit of DIR/compile_commands.json
  /// on `threads` threads (0: the hardware's). Never blocks; errors (a missing
  /// database) are kept for error().
  ProjectIndex(std::string dbDir, FlagOptions flags, unsigned threads = 0);
  ~ProjectIndex();
  ProjectIndex(const ProjectIndex &) = delete;
  ProjectIndex &operator=(const ProjectIndex &) = delete;

  const std::string &databaseDir() const { return dbDir_; }
  /// Why the database could not be read ("" when it was).
  std::string error() const;

  /// Host launches of the kernel with this USR in every indexed TU. Waits
  /// for the TUs still queued unless `waitForBuild` is false (the language
  /// server: what is indexed so far, never a wait on an edit).
  std::vector<IndexedLaunch> hostLaunchesOf(const std::string &usr, bool waitForBuild = true);
  /// True when no TU is queued or being indexed.
  bool idle() const;
  /// Waits until every queued TU is indexed.
  void wait();
  /// Re-indexes `file` (a database TU) in the background with these unsaved
  /// contents (nullopt: the file on disk), when its hash changed.
  void update(const std::string &file, std::optional<std::string> contents = std::nullopt);
  /// The analysed TU of a database file (its current text, or the contents
  /// given to update()), analysed on first use and kept while its hash is
  /// unchanged. nullptr when it cannot be analysed.
  std::shared_ptr<const AnalyzedTU> unit(const std::string &file);

  /// TUs analysed so far (cache misses, memory and disk): lets tests check
  /// that an unchanged TU is not analysed again.
  size_t analyses() const;
  size_t indexedUnits() const;

private:
  struct Entry {
    uint64_t hash = 0;
    std::vector<IndexedLaunch> launches;
  };
  void enqueue(const std::string &file, std::optional<std::string> contents);
  void indexOne(const std::string &file, std::optional<std::string> contents);
  std::string cachePath(const std::string &file) const;
  uint64_t hashOf(const std::string &file, const std::optional<std::string> &contents) const;

  std::string dbDir_;
  FlagOptions flags_;
  std::string error_;
  std::unique_ptr<llvm::ThreadPoolInterface> pool_;
  mutable std::mutex mu_;
  std::condition_variable idle_;
  size_t pending_ = 0;
  size_t analyses_ = 0;
  std::set<std::string> files_; ///< the database's CUDA translation units
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::optional<std::string>> unsaved_;
  std::map<std::string, std::pair<uint64_t, std::shared_ptr<const AnalyzedTU>>> units_;
};

} // namespace nestor
