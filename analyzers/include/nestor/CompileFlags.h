// Finding and translating the compile flags a CUDA file is analysed with.
//
// Flags come from, in order: a compile_commands.json given with `-p DIR`; one
// found by searching upwards from the file (DIR/compile_commands.json or
// DIR/build/compile_commands.json, as clangd does); the flags given after `--`
// on the command line; a default set. nvcc-only flags are translated to their
// clang equivalents or dropped, and the dropped ones are reported.
#pragma once

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace nestor {

struct FlagOptions {
  std::optional<std::string> compileCommandsDir; ///< -p DIR
  std::optional<std::vector<std::string>> userFlags; ///< flags after `--`
  std::string gpuArch = "sm_90";
  std::string cudaPath; ///< empty: $NESTOR_CUDA_PATH, $CUDA_PATH, /usr/local/cuda; "none": no toolkit
  /// A file of the database that includes this one (directly or through other
  /// headers): when the file has no entry of its own, it is parsed with this
  /// file's command, as clangd does for headers ("the includer's context").
  std::string includer;
  /// Parse the device side of the CUDA compilation (--cuda-device-only:
  /// __CUDA_ARCH__ defined, as the GPU code is compiled) instead of the host side.
  bool deviceSide = false;
};

struct CompileCommand {
  std::vector<std::string> args;    ///< clang driver args, args[0] is the driver, ends with the file
  std::vector<std::string> dropped; ///< nvcc flags clang does not take
  std::string origin;               ///< "compile_commands.json at DIR", "flags after --", "default flags"
  std::string directory;            ///< working directory of the command
  bool fallbackCudaHeaders = false; ///< no CUDA toolkit: clang's built-ins + our header
  /// -I, -iquote and -isystem directories of the project's own flags (not the
  /// ones Nestor adds), in order; relative ones against `directory`.
  std::vector<std::string> includeDirs;
  /// The database file whose command this is when it is not the file's own
  /// (FlagOptions::includer); empty otherwise.
  std::string includer;
};

/// Translates nvcc flags (without the compiler and input file) to clang flags.
std::vector<std::string> translateNvccFlags(const std::vector<std::string> &in,
                                            std::vector<std::string> &dropped);

/// Replaces response files by the words inside them: `@FILE` (clang, gcc,
/// CMake) and nvcc's `--options-file FILE` / `-optf FILE`, nested ones too.
/// Relative names are relative to `directory` (the command's). Fails with a
/// one-line message for an unreadable file or nesting deeper than 8 levels.
llvm::Expected<std::vector<std::string>> expandResponseFiles(const std::vector<std::string> &in,
                                                             const std::string &directory, unsigned depth = 0);

/// The CUDA toolkit to parse against, or "" when none is installed.
std::string findCudaPath(const std::string &preferred);

/// The compile command for `file`. Fails with a one-line message for an
/// unreadable or malformed compile database.
llvm::Expected<CompileCommand> compileCommandFor(const std::string &file, const FlagOptions &opts);

/// The directory of the compile database a file's command comes from: -p,
/// else the nearest DIR or DIR/build upwards holding compile_commands.json
/// (none with flags after `--`); nullopt when there is none.
std::optional<std::string> databaseDirFor(const std::string &file, const FlagOptions &opts);

/// The files of the compile_commands.json in `dir`, absolute, without
/// duplicates, in the database's order. Fails with a one-line message for a
/// missing or malformed database.
llvm::Expected<std::vector<std::string>> databaseFiles(const std::string &dir);

/// Where an installed `nestor` keeps its data, found relative to the running
/// executable (BIN/../include, BIN/../share/doc/nestor); in a build tree, the
/// source tree's directories. $NESTOR_RUNTIME_DIR / $NESTOR_DOCS_DIR override.
std::string runtimeIncludeDir(); ///< the directory that holds nestor/*.cuh
std::string docsDir();           ///< the directory that holds rules/<id>.md

/// Path of the header used when no CUDA toolkit is found (kept in memory).
const char *fallbackCudaHeaderPath();
const char *fallbackCudaHeaderText();

} // namespace nestor
