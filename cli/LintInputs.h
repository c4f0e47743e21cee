// Which files `nestor lint` analyses, and with whose compile command.
//
//   nestor lint -p build                 the database's .cu/.cuh translation units
//   nestor lint -p build src/            the database's files under src/; other files
//                                        there (headers, a .cu a wrapper includes) only
//                                        when --header-filter matches them
//   nestor lint -p build src/k.cuh       a named file is always analysed
//   --exclude GLOB                       drops files (and everything under a directory)
//
// A file the database has no entry for is parsed with the command of a
// database file that includes it, directly or through other headers (clangd's
// rule; the "includer's context"). Includes are found by reading the sources'
// #include lines against each command's -I/-iquote/-isystem directories.
#pragma once
#include "nestor/CompileFlags.h"

#include <optional>
#include <string>
#include <vector>

namespace nestor::cli {

struct LintTarget {
  std::string file;     ///< the path to analyse (as given, or absolute from the database)
  std::string display;  ///< how the text output names it
  std::string includer; ///< a database file that includes it, when it has no entry of its own
};

struct LintInputs {
  std::vector<LintTarget> targets;
  std::vector<std::string> errors;   ///< inputs that matched nothing, an unreadable database, ...
  bool usageError = false;           ///< a bad --exclude or --header-filter, -p without a database
  size_t excluded = 0;               ///< files --exclude removed
  size_t notInDatabase = 0;          ///< files under the given paths skipped: no entry, no --header-filter match
};

struct LintInputOptions {
  std::vector<std::string> paths;          ///< files, directories, globs (may be empty with a database)
  std::string databaseDir;                 ///< -p DIR, or empty
  std::vector<std::string> excludes;       ///< --exclude GLOBs
  std::optional<std::string> headerFilter; ///< --header-filter REGEX
  FlagOptions flags;                       ///< for the includers' commands
};

LintInputs planLintInputs(const LintInputOptions &opts);

} // namespace nestor::cli
